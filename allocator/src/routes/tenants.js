import { badRequest } from '../errors.js';
import { jobView } from '../jobs/job.js';
import { errors, tenantIdParam } from './schemas.js';

// tenants a POST /tenants/_bulk may list: the demo profile's 150 in one, the large profile's
// in a few, and one request's undo stays bounded
export const BULK_MAX = 1000;
const bulkAnswer = { type: 'object', properties: { tenants: { type: 'array', items: { type: 'object', properties: { created: { type: 'boolean' }, tenant: { $ref: 'Tenant#' } } } } } };

export default async function tenantRoutes(app) {
  app.post('/tenants', {
    schema: {
      summary: 'Place a tenant (idempotent: same id and spec -> 200, a different spec -> 409)',
      tags: ['tenants'],
      body: { $ref: 'TenantSpec#' },
      response: { 200: { $ref: 'Tenant#' }, 201: { $ref: 'Tenant#' }, ...errors(400, 404, 409, 422, 503) },
    },
  }, async (req, reply) => {
    const { created, tenant } = await app.tenants.add(req.body);
    return reply.code(created ? 201 : 200).send(tenant);
  });

  app.post('/tenants/_bulk', {
    schema: {
      summary: 'Place many tenants at once, all or nothing (each as POST /tenants: the same spec again is confirmed; any conflict refuses the whole list before anything changes)',
      tags: ['tenants'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['tenants'],
        properties: { tenants: { type: 'array', minItems: 1, maxItems: BULK_MAX, items: { $ref: 'TenantSpec#' } } },
      },
      response: {
        200: bulkAnswer,
        201: bulkAnswer,
        ...errors(400, 404, 409, 422, 503),
      },
    },
  }, async (req, reply) => {
    const results = await app.tenants.addMany(req.body.tenants);
    return reply.code(results.some((r) => r.created) ? 201 : 200).send({ tenants: results });
  });

  app.get('/tenants', {
    schema: { summary: 'All tenants', tags: ['tenants'], response: { 200: { type: 'object', properties: { tenants: { type: 'array', items: { $ref: 'Tenant#' } } } }, ...errors(503) } },
  }, () => ({ tenants: app.views.listTenants() }));

  app.get('/tenants/:id', {
    schema: { summary: 'One tenant: index, group, alias, documents, search rate', tags: ['tenants'], params: tenantIdParam, response: { 200: { $ref: 'Tenant#' }, ...errors(400, 404, 503) } },
  }, (req) => app.views.getTenant(req.params.id));

  app.delete('/tenants/:id', {
    schema: {
      summary: 'Delete a tenant: alias and documents',
      tags: ['tenants'],
      params: tenantIdParam,
      response: { 200: { type: 'object', properties: { deleted: { type: 'string' }, documents_deleted: { type: 'integer' } } }, ...errors(400, 404, 409, 503) },
    },
  }, (req) => app.tenants.delete(req.params.id));

  app.post('/tenants/:id/move', {
    schema: {
      summary: 'Move a tenant to a group, a shared index, or a dedicated index; 202 with the job',
      tags: ['tenants'],
      params: tenantIdParam,
      body: { $ref: 'MoveRequest#' },
      response: { 202: { $ref: 'Job#' }, ...errors(400, 404, 409, 422, 503) },
    },
  }, async (req, reply) => {
    const b = req.body;
    if (b.index && (b.group || b.dedicated)) throw badRequest('give either index, or group and/or dedicated, not both');
    if (b.index === undefined && b.group === undefined && b.dedicated === undefined) throw badRequest('give a target: group, index or dedicated');
    const job = await app.moves.request(req.params.id, b);
    return reply.code(202).header('location', `/jobs/${job.id}`).send(jobView(job));
  });
}
