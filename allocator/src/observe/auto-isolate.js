// Auto-isolation (policy auto.enabled, off by default): after each observation, the allocator
// moves the hottest tenant itself, to the group with the most headroom, under guards:
//   - one move at a time: none while any move is queued or running;
//   - never while the cluster is not green or a data node seen before is missing;
//   - a cool-down (auto.coolDownS) after each automatic move, which also keeps the same tenant
//     from moving twice within it; read from the persisted jobs, so a restart does not reset it;
//     an operator's later move of that tenant (through the API) ends it.
// Every automatic move records its evidence in the job (reason, evidence) and in the log, and
// shows as a region on the dashboards (tenantlab_move_active{trigger="auto"}).
import { hotMove } from '../rebalance/observed-plan.js';

const ms = (iso) => (iso ? Date.parse(iso) : 0);

/**
 * What auto-isolation does now: { move } (a hotMove()), or { blocked: why }, or { idle: why }.
 * Pure: `snapshot` is the observer's, `store` the state, `model` the placement model.
 */
export function autoDecision({ snapshot, store, model, policy, now = Date.now() }) {
  const { auto } = policy;
  if (!auto.enabled) return { idle: 'off (policy auto.enabled is false)' };
  if (!snapshot.hot.length) return { idle: 'no hot tenant' };
  // a missing node first: it is the cause the user needs to hear of (the cluster is yellow because of it)
  if (snapshot.health.missing.length) return { blocked: `data node${snapshot.health.missing.length > 1 ? 's' : ''} missing: ${snapshot.health.missing.join(', ')}` };
  if (snapshot.health.status !== 'green') return { blocked: `cluster is ${snapshot.health.status ?? 'unknown'}, not green` };
  const jobs = [...store.jobs.values()].filter((j) => j.type === 'move');
  const active = jobs.find((j) => j.state === 'queued' || j.state === 'running');
  if (active) return { blocked: `a move is in progress (${active.id}, tenant ${active.tenant})` };
  const coolMs = auto.coolDownS * 1000;
  // an automatic move that an operator has since undone (a later move of the same tenant asked
  // for through the API) no longer holds the cool-down: the operator took the decision over
  const undone = (a) => jobs.some((j) => j.tenant === a.tenant && j.trigger !== 'auto' && j.state === 'succeeded' && ms(j.created_at) >= (ms(a.finished_at) || ms(a.created_at)));
  const autos = jobs.filter((j) => j.trigger === 'auto' && !undone(j));
  const last = autos.reduce((m, j) => Math.max(m, ms(j.finished_at) || ms(j.created_at)), 0);
  if (last && now - last < coolMs) {
    return { blocked: `cool-down: the last automatic move ended ${Math.round((now - last) / 1000)} s ago, the next may start after ${auto.coolDownS} s` };
  }
  const reasons = [];
  for (const hot of snapshot.hot) {
    const tenant = store.tenants.get(hot.tenant);
    if (!tenant || tenant.state !== 'active') {
      reasons.push(`${hot.tenant} is ${tenant?.state ?? 'gone'}`);
      continue;
    }
    const move = hotMove({ model, cost: snapshot.cost, hot, policy });
    if (move) return { move };
    reasons.push(`no group has more headroom than ${hot.group} for ${hot.tenant}`);
  }
  return { blocked: reasons.join('; ') };
}

export class AutoIsolator {
  constructor(ctx, moves) {
    this.ctx = ctx;
    this.moves = moves;
    this.last = { at: null, decision: { idle: 'not observed yet' } };
  }

  /** Called after each observation (observer.onObservation). */
  async consider(snapshot, model) {
    // GET /groups observes too: two observations must not both start a move
    if (this.busy) return;
    this.busy = true;
    try {
      await this.#consider(snapshot, model);
    } finally {
      this.busy = false;
    }
  }

  async #consider(snapshot, model) {
    const { store, policy, log, metrics } = this.ctx;
    const decision = autoDecision({ snapshot, store, model, policy });
    this.last = { at: snapshot.at, decision: decision.move ? { moving: decision.move.tenant } : decision };
    if (!decision.move) {
      if (decision.blocked) log.debug({ why: decision.blocked }, 'auto-isolation waits');
      return;
    }
    const m = decision.move;
    const job = await this.moves.request(m.tenant, { group: m.to.group, ...(m.to.dedicated ? { dedicated: true } : {}) }, { trigger: 'auto', reason: m.why, evidence: m.evidence });
    metrics.autoIsolations.inc();
    this.last.decision = { moved: m.tenant, job: job.id };
    log.warn({ tenant: m.tenant, job: job.id, from: m.from, to: m.to, evidence: m.evidence, expected: m.expected }, `auto-isolation: moving hot tenant ${m.tenant} to ${m.to.group}: ${m.why}`);
  }

  /** What GET /hot shows of it. */
  view() {
    const { auto } = this.ctx.policy;
    return { enabled: auto.enabled, cool_down_s: auto.coolDownS, checked_at: this.last.at, ...this.last.decision };
  }
}
