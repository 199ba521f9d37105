#!/usr/bin/env node
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

let config;
try {
  config = loadConfig();
} catch (err) {
  // a malformed lab.env line is the lab's one message, the same from every consumer
  console.error(err.name === 'LabEnvError' ? err.message : `tenantlab-allocator: ${err.message}`);
  process.exit(2);
}
const log = createLogger(config.logLevel);
const server = await startServer(config, { log }).catch((err) => {
  log.fatal({ err: err.message }, `cannot listen on ${config.host}:${config.port}`);
  process.exit(1);
});
log.info({ url: server.url, es: config.esUrl, prefix: config.prefix, policy: config.policyFile }, 'allocator listening');

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: sig }, 'stopping');
    // A move in progress is persisted phase by phase and resumes on the next start.
    setTimeout(() => process.exit(0), 5000).unref();
    await server.app.close().catch(() => {});
    process.exit(0);
  });
}
