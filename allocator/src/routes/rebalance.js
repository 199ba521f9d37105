import { errors } from './schemas.js';

const byQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { by: { type: 'string', enum: ['observed', 'static'], description: 'observed search cost, or declared traffic weights (default: observed once enough has been observed)' } },
};

export default async function rebalanceRoutes(app) {
  app.get('/plan/rebalance', {
    schema: { summary: 'Dry run: hot tenants to the group with most headroom, or the moves that bring every group within tolerance of the mean load', tags: ['rebalance'], querystring: byQuery, response: { 200: { $ref: 'RebalancePlan#' }, ...errors(400, 503) } },
  }, (req) => app.rebalancer.plan(req.query.by));

  app.post('/rebalance', {
    schema: {
      summary: 'Run the rebalance plan, one move at a time (202 with the job; 200 when already balanced)',
      tags: ['rebalance'],
      querystring: byQuery,
      response: {
        200: { type: 'object', properties: { job: { type: 'null' }, plan: { $ref: 'RebalancePlan#' } } },
        202: { type: 'object', properties: { job: { $ref: 'Job#' }, plan: { $ref: 'RebalancePlan#' } } },
        ...errors(400, 503),
      },
    },
  }, async (req, reply) => {
    const res = await app.rebalancer.start(req.query.by);
    return reply.code(res.job ? 202 : 200).send(res);
  });
}
