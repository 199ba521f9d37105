// The allocator's operations, one module each, on the shared parts the other plugins decorate:
// `app.views` (what GET shows), `app.tenants` (create/delete), `app.moves` (move requests and
// move jobs), `app.rebalancer` (plan and run rebalances), `app.autoIsolator` (moves hot tenants
// when the policy allows) and `app.startup` (waiting for the
// cluster, loading the state, resuming jobs; readiness). Registered last, so on shutdown its
// onClose runs first: no start-up step begins once the server is closing.
import fp from 'fastify-plugin';
import { Moves } from '../moves/moves.js';
import { AutoIsolator } from '../observe/auto-isolate.js';
import { GroupHistory } from '../observe/history.js';
import { placementModel } from '../placement/model.js';
import { Rebalancer } from '../rebalance/rebalancer.js';
import { Startup } from '../startup.js';
import { Tenants } from '../tenants/tenants.js';
import { Views } from '../views/views.js';

export default fp(async function allocator(app, { config }) {
  const ctx = {
    config,
    policy: config.policy,
    client: app.es,
    log: app.log,
    metrics: app.metrics,
    store: app.store,
    observer: app.observer,
    lock: app.lock,
    runner: app.runner,
  };
  const views = new Views(ctx);
  const moves = new Moves(ctx, views);
  const rebalancer = new Rebalancer(ctx, moves);
  app.runner.handle('move', (job, signal) => moves.run(job, signal));
  app.runner.handle('rebalance', (job, signal) => rebalancer.run(job, signal));
  const autoIsolator = new AutoIsolator(ctx, moves);
  app.observer.onObservation((snapshot) =>
    autoIsolator.consider(snapshot, placementModel({ store: ctx.store, snapshot, groups: snapshot.groups, policy: ctx.policy, prefix: config.prefix })));
  // each group's last minutes of health, for the console's charts
  const history = new GroupHistory();
  app.observer.onObservation((snapshot) => history.add(snapshot));
  app.decorate('history', history);
  app.decorate('views', views);
  app.decorate('autoIsolator', autoIsolator);
  app.decorate('tenants', new Tenants(ctx, views));
  app.decorate('moves', moves);
  app.decorate('rebalancer', rebalancer);
  app.decorate('startup', new Startup(ctx));
  app.addHook('onClose', async () => app.startup.stop());
}, { name: 'allocator', dependencies: ['jobs'] });
