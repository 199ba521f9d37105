// The Elasticsearch client, shared by everything as `app.es`; closed last on shutdown (fastify
// runs onClose hooks in reverse order of registration, and this plugin is registered first).
import fp from 'fastify-plugin';
import { createClient } from '../es/client.js';

export default fp(async function cluster(app, { config }) {
  app.decorate('es', createClient(config));
  app.addHook('onClose', async () => {
    await app.es.close();
  });
}, { name: 'cluster' });
