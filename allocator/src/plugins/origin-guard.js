// Applies http/origin-guard.js to every request, before routing, body parsing and readiness:
// a refused request costs nothing and learns nothing. Also makes JSON the only body type: fastify
// parses text/plain by default, and text/plain is what a cross-site form may send without asking.
import fp from 'fastify-plugin';
import { allowedHosts, checkRequest } from '../http/origin-guard.js';

async function originGuard(app, { config }) {
  // the port is the one listened on (0 in tests and benchmarks: known once listening)
  let allowed = null;
  const allowedNow = () => {
    allowed ??= allowedHosts({ listenHost: config.host, port: app.server.address()?.port ?? config.port, publicPort: config.publicPort, extraNames: config.allowedHostNames ?? [] });
    return allowed;
  };
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (req, reply) => {
    const refused = checkRequest(allowedNow(), req.raw);
    if (refused) return reply.code(refused.status).send({ error: refused.error, message: refused.message });
    return undefined;
  });
}

export default fp(originGuard, { name: 'origin-guard' });
