// Prometheus metrics as `app.metrics` (definitions in metrics.js) and the request-duration
// histogram every route feeds.
import fp from 'fastify-plugin';
import { createMetrics } from '../metrics.js';

export default fp(async function metrics(app) {
  app.decorate('metrics', createMetrics());
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions?.url ?? 'unmatched';
    app.metrics.httpDuration.observe({ method: req.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
  });
}, { name: 'metrics' });
