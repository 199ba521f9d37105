// The job runner as `app.runner`. On shutdown it takes no new job and stops the running one at
// its next page, persisted where it was (the next start continues it); that happens before the
// state plugin and the Elasticsearch client close, so the last save still reaches the cluster.
import fp from 'fastify-plugin';
import { SerialRunner } from '../jobs/runner.js';

export default fp(async function jobs(app) {
  app.decorate('runner', new SerialRunner({ store: app.store, log: app.log }));
  app.addHook('onClose', async () => {
    app.runner.stop();
    await app.runner.idle();
  });
}, { name: 'jobs', dependencies: ['state'] });
