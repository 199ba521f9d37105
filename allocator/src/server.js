// Assembles config, cluster client, allocator and HTTP server. Used by main.js, the tests and
// the benchmarks, so all three run exactly the same service.
import { Allocator } from './allocator.js';
import { buildApp } from './app.js';
import { createClient } from './es/client.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';

export async function startServer(config, { log = createLogger(config.logLevel) } = {}) {
  const metrics = createMetrics();
  const client = createClient(config);
  const allocator = new Allocator({ config, client, log, metrics });
  const app = await buildApp({ allocator, metrics, log });
  await app.listen({ host: config.host, port: config.port });
  // Not awaited: the API answers (readyz says why it is not ready) while the cluster comes up.
  const started = allocator.start();
  const address = app.server.address();
  return {
    app,
    allocator,
    url: `http://${address.address}:${address.port}`,
    started,
    async close() {
      await allocator.stop();
      await app.close();
      await allocator.runner.idle();
      await client.close();
    },
  };
}
