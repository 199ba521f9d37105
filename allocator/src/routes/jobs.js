import { errors } from './schemas.js';

export default async function jobRoutes(app) {
  app.get('/jobs', {
    schema: { summary: 'Move and rebalance jobs, newest first', tags: ['jobs'], response: { 200: { type: 'object', properties: { jobs: { type: 'array', items: { $ref: 'Job#' } } } }, ...errors(503) } },
  }, () => ({ jobs: app.views.listJobs() }));

  app.get('/jobs/:id', {
    schema: {
      summary: 'One job: state, documents copied, rate, errors',
      tags: ['jobs'],
      params: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string', pattern: '^[a-z]+-[a-z0-9]+-[a-f0-9]+$' } } },
      response: { 200: { $ref: 'Job#' }, ...errors(400, 404, 503) },
    },
  }, (req) => app.views.getJob(req.params.id));
}
