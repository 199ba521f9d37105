export default async function healthRoutes(app) {
  app.get('/healthz', { schema: { summary: 'Liveness: the process answers', tags: ['ops'] } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { summary: 'Readiness: cluster reachable and state loaded', tags: ['ops'], response: { 503: { $ref: 'Error#' } } } }, async (req, reply) => {
    const r = await app.startup.readiness();
    if (!r.ready) return reply.code(503).send({ error: 'not_ready', message: r.reason });
    return { status: 'ready', cluster_status: r.cluster_status, tenants: r.tenants };
  });

  app.get('/metrics', { schema: { summary: 'Prometheus metrics', tags: ['ops'] } }, async (req, reply) => {
    reply.type(app.metrics.registry.contentType);
    return app.metrics.registry.metrics();
  });
}
