// Threshold steps, named after what they judge. A stat colours its value (or background) by
// them; a time series draws them as lines. The first step (value null) is the base colour.

const step = (color, value = null) => ({ color, value });

/** A plain figure: no colour change. */
export const PLAIN = [step('green')];

/** Cluster health as CLUSTER_HEALTH encodes it: 0 green, 1 yellow, 2 red. */
export const HEALTH = [step('green'), step('yellow', 1), step('red', 2)];

/** One is already bad (firing alerts). */
export const ANY_IS_BAD = [step('green'), step('red', 1)];

/** One deserves a look (unassigned shards, pending tasks). */
export const ANY_IS_WARNING = [step('green'), step('orange', 1)];

/** Heap used / max: the ElasticsearchHeapHigh alert fires above 85% (prometheus/rules/). */
export const HEAP = [step('green'), step('orange', 0.75), step('red', 0.85)];

/** Thread pool rejections per second: any rejection at all. */
export const REJECTIONS = [step('green'), step('red', 0.001)];

/** Share of failed requests: the load's own threshold, 1%. */
export const FAILURE_RATE = [step('green'), step('red', 0.01)];

/** Share of checks passed: the load's own threshold, 99%. */
export const CHECKS_PASSED = [step('red'), step('green', 0.99)];

/** Share of open-model arrivals that started late: the load could not keep its rate. */
export const LATE_ARRIVALS = [step('green'), step('orange', 0.01), step('red', 0.05)];

/** Circuit breaker estimate / limit: close to tripping. */
export const BREAKER = [step('green'), step('red', 0.9)];
