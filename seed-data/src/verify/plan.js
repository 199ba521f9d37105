// What `make up` (tenantlab-seed ensure) sends on a lab that may have been used: pure logic,
// so the rules are tested without a cluster.
//
//   new         the allocator had no such tenant (created now)        -> its whole catalog
//   empty       the tenant exists and its alias finds 0 documents     -> its whole catalog
//   unfinished  count off, and a load of ours started it and never
//               finished (killed, Ctrl-C: the journal says so)        -> its whole catalog
//   complete    count = manifest                                      -> nothing
//   drift       any other count (a user's writes added or removed
//               products), or an alias that is missing                -> nothing; a warning
//
// Re-sending is harmless for the first three (external versions: a product a user changed
// since wins), but for a drifted store it would bring back what its user deleted, and it
// cannot remove what they added: the count says nothing about which is which.
import { aliasFor } from '@tenantlab/contract/naming';

/**
 * tenants: the profile's [{ id, expected_products }]; created: Set of ids the allocator did not
 * know; counts: Map id -> documents through the alias (null: alias missing); unfinished: Set of
 * ids whose last load never finished. Returns { load: [{ tenant, reason }], complete, drift }.
 */
export function planFill({ tenants, created = new Set(), counts, unfinished = new Set() }) {
  const load = [];
  const complete = [];
  const drift = [];
  for (const t of tenants) {
    const actual = counts.get(t.id);
    const expected = t.expected_products;
    if (created.has(t.id)) load.push({ tenant: t, reason: 'new' });
    else if (actual === expected) complete.push(t);
    else if (actual === 0) load.push({ tenant: t, reason: 'empty' });
    else if (actual === null || actual === undefined) drift.push({ id: t.id, expected, actual: null, diff: null });
    else if (unfinished.has(t.id)) load.push({ tenant: t, reason: 'unfinished' });
    else drift.push({ id: t.id, expected, actual, diff: actual - expected });
  }
  return { load, complete, drift };
}

/** "2 new, 1 empty" from plan.load, always in that order. */
export function reasonsOf(load) {
  return ['new', 'empty', 'unfinished']
    .map((r) => [r, load.filter((p) => p.reason === r).length])
    .filter(([, k]) => k)
    .map(([r, k]) => `${k} ${r}`)
    .join(', ');
}

/** One warning line: how many stores drifted, by how much in all, the first few of them. */
export function describeDrift(drift, total, { examples = 5 } = {}) {
  const one = (m) => (m.diff === null ? `${m.id} alias ${aliasFor(m.id)} missing (manifest ${m.expected})` : `${m.id} ${m.diff > 0 ? '+' : ''}${m.diff} (${m.actual} documents, manifest ${m.expected})`);
  const net = drift.reduce((a, m) => a + (m.diff ?? 0), 0);
  const shown = drift.slice(0, examples).map(one).join('; ');
  const rest = drift.length > examples ? `; and ${drift.length - examples} more` : '';
  return `${drift.length} of ${total} stores differ from the manifest (net ${net > 0 ? '+' : ''}${net}), left as they are: ${shown}${rest}`;
}
