// The allocator's state and what it knows of the cluster: `app.store` (tenants, indices, jobs,
// persisted in the state index), `app.observer` (the periodic look at the cluster behind
// /metrics and the views) and `app.lock` (the one mutex every decision runs under).
import fp from 'fastify-plugin';
import { Mutex } from '../lock.js';
import { Observer } from '../observe/observer.js';
import { StateStore } from '../state/store.js';

export default fp(async function state(app, { config }) {
  app.decorate('store', new StateStore(app.es, config.prefix));
  app.decorate('observer', new Observer({ client: app.es, config, store: app.store, metrics: app.metrics, log: app.log }));
  app.decorate('lock', new Mutex());
  app.addHook('onClose', async () => app.observer.stop());
}, { name: 'state', dependencies: ['cluster', 'metrics'] });
