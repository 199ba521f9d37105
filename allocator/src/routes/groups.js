import { HttpError } from '../errors.js';
import { errors } from './schemas.js';

export default async function groupRoutes(app) {
  app.get('/groups', { schema: { summary: 'Index groups: nodes, indices, tenants, documents and load', tags: ['groups'], response: { 503: { $ref: 'Error#' } } } }, () => app.views.groups());

  // An operator's word that a group's learned normal is not its normal (after a load test, a
  // planned saturation, new hardware): the relative objective waits until it is learned again.
  // The experiment runner says it after its calibration's saturated windows (experiments/runner).
  app.delete('/groups/:group/baseline', {
    schema: {
      summary: "Forget the group's learned baseline p95 (every signal); it is learned again from the next observations",
      tags: ['groups'],
      params: { type: 'object', properties: { group: { type: 'string', minLength: 1, maxLength: 100 } }, required: ['group'] },
      response: { 200: { type: 'object', properties: { group: { type: 'string' }, samples_dropped: { type: 'integer' } } }, ...errors(404, 503) },
    },
  }, async (req) => {
    // the groups the observer knows (its last look, or a first one): no extra look at the cluster per call
    if (!app.observer.snapshot.at) await app.observer.observe();
    const names = app.observer.snapshot.groups.map((g) => g.name);
    if (!names.includes(req.params.group)) throw new HttpError(404, 'unknown_group', `unknown group '${req.params.group}': known groups are ${names.join(', ') || 'none'}`);
    return app.observer.forgetBaseline(req.params.group);
  });
}
