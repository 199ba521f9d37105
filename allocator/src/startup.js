// Start-up and readiness. The allocator waits for the cluster instead of crashing on it
// (/healthz answers at once, /readyz says why it is not ready yet), then makes sure its template
// and state index exist (rebuilding the state from the cluster when the index was lost), loads
// the state and continues every job that was queued or running when the last process stopped.
import { ensureTemplate } from './es/template.js';
import { esReason, unavailable } from './errors.js';
import { isActive, transition } from './jobs/job.js';
import { rebuildFromCluster } from './state/rebuild.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class Startup {
  constructor(ctx) {
    this.ctx = ctx;
    this.ready = false;
    this.notReadyReason = `connecting to Elasticsearch at ${ctx.config.esUrl}`;
    this.stopped = false;
  }

  /** Resolves once ready, or when stopped first. Never throws on the cluster's account. */
  async start() {
    const { client, config, store, observer, log } = this.ctx;
    let lastLogged = 0;
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await client.cluster.health({ wait_for_status: 'yellow', timeout: '5s' });
        await ensureTemplate(client, config.prefix);
        const existed = await store.ensureIndex();
        if (!existed) {
          const rebuilt = await rebuildFromCluster(client, store, config.prefix, config.groupAttr);
          if (rebuilt.tenants) log.warn(rebuilt, 'state index was missing: state rebuilt from aliases');
        }
        await store.load();
        if (this.stopped) return;
        this.ready = true;
        observer.start();
        this.#resumeJobs();
        log.info({ tenants: store.tenants.size, indices: store.indices.size, es: config.esUrl }, 'allocator ready');
        return;
      } catch (err) {
        this.notReadyReason = `waiting for Elasticsearch at ${config.esUrl}: ${esReason(err)}`;
        if (Date.now() - lastLogged > 30000) {
          log.warn({ err: esReason(err) }, 'cluster not ready; retrying');
          lastLogged = Date.now();
        }
        await sleep(Math.min(5000, 250 * attempt));
      }
    }
  }

  stop() {
    this.stopped = true;
  }

  /** Throws the 503 every API route answers until the allocator is ready. */
  requireReady() {
    if (!this.ready) throw unavailable(this.notReadyReason);
  }

  async readiness() {
    if (!this.ready) return { ready: false, reason: this.notReadyReason };
    try {
      const h = await this.ctx.client.cluster.health({ timeout: '2s' }, { requestTimeout: 3000 });
      return { ready: true, cluster_status: h.status, tenants: this.ctx.store.tenants.size };
    } catch (err) {
      return { ready: false, reason: `Elasticsearch unreachable at ${this.ctx.config.esUrl}: ${esReason(err)}` };
    }
  }

  /** Moves first (a rebalance waits for its moves), each kind oldest first. */
  #resumeJobs() {
    const { store, runner, metrics } = this.ctx;
    const jobs = [...store.jobs.values()].filter(isActive);
    jobs.sort((a, b) => (a.type === b.type ? (a.created_at < b.created_at ? -1 : 1) : a.type === 'move' ? -1 : 1));
    for (const j of jobs) {
      // A job persisted as running was interrupted (crash or shutdown): it starts again from
      // its persisted phase, counters and checkpoint.
      if (j.state === 'running') transition(j, 'queued');
      if (j.type === 'move') metrics.movesInProgress.inc();
      runner.enqueue(j.id);
    }
  }
}
