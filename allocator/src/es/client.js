import { Client } from '@elastic/elasticsearch';

export function createClient(config) {
  return new Client({
    ...config.es,
    requestTimeout: config.requestTimeoutMs,
    // Retries belong to the callers that know whether an operation is idempotent.
    maxRetries: 0,
    compression: false,
  });
}
