// GET /hot: which tenants hurt their neighbours now, with the evidence; each group's health.
import { errors } from './schemas.js';

export default async function hotRoutes(app) {
  app.get('/hot', {
    schema: {
      summary: "Hot tenants (share of their group's search time over the policy while the group misses its objective), group health, auto-isolation",
      tags: ['tenants'],
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { fresh: { type: 'string', enum: ['true', 'false', '1', '0'], description: 'observe the cluster now instead of answering from the last observation' } },
      },
      response: { 200: { type: 'object', additionalProperties: true }, ...errors(400, 503) },
    },
  }, (req) => app.views.hot({ fresh: ['true', '1'].includes(req.query.fresh), auto: () => app.autoIsolator.view() }));
}
