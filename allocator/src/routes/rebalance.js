import { errors } from './schemas.js';

export default async function rebalanceRoutes(app) {
  app.get('/plan/rebalance', {
    schema: { summary: 'Dry run: the moves that bring every group within tolerance of the mean load', tags: ['rebalance'], response: { 200: { $ref: 'RebalancePlan#' }, ...errors(503) } },
  }, () => app.rebalancer.plan());

  app.post('/rebalance', {
    schema: {
      summary: 'Run the rebalance plan, one move at a time (202 with the job; 200 when already balanced)',
      tags: ['rebalance'],
      response: {
        200: { type: 'object', properties: { job: { type: 'null' }, plan: { $ref: 'RebalancePlan#' } } },
        202: { type: 'object', properties: { job: { $ref: 'Job#' }, plan: { $ref: 'RebalancePlan#' } } },
        ...errors(503),
      },
    },
  }, async (req, reply) => {
    const res = await app.rebalancer.start();
    return reply.code(res.job ? 202 : 200).send(res);
  });
}
