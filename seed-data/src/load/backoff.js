// Exponential backoff with full jitter: clients that were pushed back together must not come
// back together, or they recreate the very burst that got them rejected.
export function backoffMs(attempt, { baseMs = 100, maxMs = 10000, random = Math.random } = {}) {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
