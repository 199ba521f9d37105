// A managed index exists twice: in the cluster and in the state. Creating one records both and
// leaves the steps that undo them on `undo`, so a later failure of the same request removes it.
import { createIndex, deleteIndex } from '../es/cluster.js';

export async function createManagedIndex({ client, store, config }, spec, undo) {
  await createIndex(client, spec, { attr: config.groupAttr });
  undo.push(() => deleteIndex(client, spec.name));
  await store.putIndex({ ...spec, created_at: new Date().toISOString() });
  undo.push(() => store.deleteIndex(spec.name));
}

/** Runs the undo steps, newest first; a failing step is logged and the rest still run. */
export async function undoAll(undo, log) {
  for (const step of undo.reverse()) await step().catch((e) => log.error({ err: e.message }, 'rollback step failed'));
}
