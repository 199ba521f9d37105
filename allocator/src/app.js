// The allocator as a fastify application: plugins decorate what is shared (plugins/: the
// Elasticsearch client, metrics, the state, the job runner, the operations) and close it on
// shutdown; routes (routes/) are the HTTP face, with JSON Schema validation that rejects unknown
// fields, one error shape ({error, message}) and no stack traces.
import swagger from '@fastify/swagger';
import Fastify, { LogController } from 'fastify';
import { toHttpError } from './errors.js';
import allocatorPlugin from './plugins/allocator.js';
import clusterPlugin from './plugins/cluster.js';
import jobsPlugin from './plugins/jobs.js';
import metricsPlugin from './plugins/metrics.js';
import originGuard from './plugins/origin-guard.js';
import statePlugin from './plugins/state.js';
import consoleRoutes from './routes/console.js';
import groupRoutes from './routes/groups.js';
import healthRoutes from './routes/health.js';
import hotRoutes from './routes/hot.js';
import jobRoutes from './routes/jobs.js';
import rebalanceRoutes from './routes/rebalance.js';
import { shared } from './routes/schemas.js';
import tenantRoutes from './routes/tenants.js';

const fastifyCodes = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_json',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
};

/** "body/expected_products must be >= 0", "body has unknown field 'x'": what to fix, not ajv's jargon. */
function validationMessage(err) {
  const v = err.validation[0];
  const where = `${err.validationContext ?? 'request'}${v.instancePath ?? ''}`;
  if (v.keyword === 'additionalProperties') return `${where} has unknown field '${v.params.additionalProperty}'`;
  if (v.keyword === 'required') return `${where} is missing required field '${v.params.missingProperty}'`;
  return `${where} ${v.message}`;
}

export async function buildApp({ config, log }) {
  const app = Fastify({
    loggerInstance: log,
    // Per-request lines would drown the log at benchmark rates; errors are logged below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 64 * 1024,
    forceCloseConnections: true,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });

  // First: what a browser may ask (Host, Origin, JSON bodies), before anything else runs
  await app.register(originGuard, { config });
  // Order matters: each needs the ones before it, and they close in the reverse order.
  await app.register(clusterPlugin, { config });
  await app.register(metricsPlugin);
  await app.register(statePlugin, { config });
  await app.register(jobsPlugin);
  await app.register(allocatorPlugin, { config });

  app.setErrorHandler((err, req, reply) => {
    if (err.validation) return reply.code(400).send({ error: 'bad_request', message: validationMessage(err) });
    if (fastifyCodes[err.code] || (err.code?.startsWith?.('FST_') && err.statusCode < 500)) {
      return reply.code(err.statusCode ?? 400).send({ error: fastifyCodes[err.code] ?? 'bad_request', message: err.message });
    }
    const http = toHttpError(err);
    if (http.statusCode >= 500) req.log.error({ err, url: req.url, method: req.method }, 'request failed');
    return reply.code(http.statusCode).send({ error: http.code, message: http.message });
  });

  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` }));

  for (const s of shared) app.addSchema(s);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'tenantlab allocator', version: '0.1.0', description: 'Places tenants into index groups, moves them with zero loss, rebalances.' },
      tags: ['ops', 'groups', 'tenants', 'jobs', 'rebalance', 'console'].map((name) => ({ name })),
    },
    refResolver: { buildLocalReference: (json) => json.$id },
  });

  await app.register(healthRoutes);
  // the console answers before the cluster is ready: the page says what it waits for
  await app.register(consoleRoutes, { config });
  // Everything but health answers 503 with the reason until the allocator is ready (after the
  // request was validated, so a malformed request is still a 400).
  await app.register(async (api) => {
    api.addHook('preHandler', async () => app.startup.requireReady());
    await api.register(groupRoutes);
    await api.register(tenantRoutes);
    await api.register(jobRoutes);
    await api.register(rebalanceRoutes);
    await api.register(hotRoutes);
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  return app;
}
