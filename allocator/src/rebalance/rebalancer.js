// Rebalance execution. GET /plan/rebalance is a plan over the current model, computed by
// static-plan.js (declared weights) or observed-plan.js (what the observer measured); POST
// /rebalance records it as a job whose moves run one at a time, each a normal move job (its
// child), so each is persisted, resumable and visible under GET /jobs on its own.
import { discoverGroups } from '../es/cluster.js';
import { esReason, HttpError, Interrupted } from '../errors.js';
import { isActive, jobView, newRebalanceJob, transition } from '../jobs/job.js';
import { placementModel } from '../placement/model.js';
import { observedEnough, planObserved } from './observed-plan.js';
import { planRebalance } from './static-plan.js';

export class Rebalancer {
  constructor(ctx, moves) {
    this.ctx = ctx;
    this.moves = moves;
  }

  /**
   * The plan by declared weights (`by` = 'static') or by what is observed ('observed'); without
   * `by`: observed once the window holds enough searches, static before. The answer says which.
   */
  async plan(by) {
    const { client, config, store, observer, policy } = this.ctx;
    const groups = await discoverGroups(client, config.groupAttr);
    const exclude = new Set([...store.tenants.values()].filter((t) => t.state !== 'active').map((t) => t.id));
    const model = placementModel({ store, snapshot: observer.snapshot, groups, policy, prefix: config.prefix });
    const { cost, hot } = observer.snapshot;
    const enough = observedEnough(cost, policy.observe);
    if (by === 'observed' || (by === undefined && enough)) {
      return { ...planObserved({ model, cost, hot, policy, exclude }), observed_enough: enough };
    }
    return { by: 'static', observed_enough: enough, ...planRebalance(model, { exclude }) };
  }

  /** POST /rebalance: { job: null, plan } when nothing is to do, else the queued job. */
  async start(by) {
    const plan = await this.plan(by);
    if (!plan.moves.length) return { job: null, plan };
    const job = newRebalanceJob(plan.moves);
    await this.ctx.store.putJob(job);
    this.ctx.runner.enqueue(job.id);
    return { job: jobView(job), plan };
  }

  /** The runner's handler for rebalance jobs (already `running`). Throws only Interrupted. */
  async run(job) {
    const { store, runner } = this.ctx;
    for (const m of job.moves) {
      if (m.state !== 'pending' && m.state !== 'running') continue;
      try {
        let child = m.job_id ? store.jobs.get(m.job_id) : null;
        if (!child) {
          child = await this.moves.request(m.tenant, { group: m.to.group, ...(m.to.dedicated ? { dedicated: true } : {}) }, { enqueue: false, parent: job.id, reason: m.why ?? null });
          m.job_id = child.id;
          m.state = 'running';
          await store.putJob(job);
        }
        if (isActive(child)) await runner.run(child);
        m.state = child.state;
      } catch (err) {
        if (err instanceof Interrupted) {
          transition(job, 'queued');
          await store.putJob(job).catch(() => {});
          throw err;
        }
        m.state = 'skipped';
        m.reason = err instanceof HttpError ? err.message : esReason(err);
      }
      await store.putJob(job);
    }
    transition(job, job.moves.some((m) => m.state === 'failed') ? 'failed' : 'succeeded');
    await store.putJob(job);
  }
}
