// Assembles the allocator (app.js), listens, and starts it. Used by main.js, the tests and the
// benchmarks, so all three run exactly the same service.
import { buildApp } from './app.js';
import { createLogger } from './logger.js';

export async function startServer(config, { log = createLogger(config.logLevel) } = {}) {
  const app = await buildApp({ config, log });
  await app.listen({ host: config.host, port: config.port });
  // Not awaited: the API answers (readyz says why it is not ready) while the cluster comes up.
  const started = app.startup.start();
  const address = app.server.address();
  return {
    app,
    url: `http://${address.address}:${address.port}`,
    started,
    // Every part closes itself in its plugin's onClose: jobs stop at a safe point first.
    close: () => app.close(),
  };
}
