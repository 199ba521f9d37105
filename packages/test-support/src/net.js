// Ports and waiting, for tests that start real servers beside the lab.
import { createServer } from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}
