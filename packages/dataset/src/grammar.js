// The description grammar (vocab/description.json), compiled once into token lists so that
// expanding it per product is a walk over arrays, not a regex replace per slot.
import { vocab } from './vocab.js';

function compile(grammar) {
  const rules = {};
  for (const [name, alternatives] of Object.entries(grammar)) {
    if (name.startsWith('_')) continue;
    rules[name] = alternatives.map((alt) => {
      const tokens = [];
      const re = /\{(\$?)([a-z_0-9]+)\}/g;
      let last = 0;
      for (let m; (m = re.exec(alt)); last = re.lastIndex) {
        if (m.index > last) tokens.push(alt.slice(last, m.index));
        tokens.push(m[1] ? { slot: m[2] } : { rule: m[2] });
      }
      if (last < alt.length) tokens.push(alt.slice(last));
      return tokens;
    });
  }
  for (const alts of Object.values(rules)) {
    for (const t of alts.flat()) if (t.rule && !rules[t.rule]) throw new Error(`description grammar: unknown rule {${t.rule}}`);
  }
  return rules;
}

const rules = compile(vocab.grammar);

function expand(rule, rng, ctx, out) {
  for (const t of rng.pick(rules[rule])) {
    if (typeof t === 'string') out.push(t);
    else if (t.rule) expand(t.rule, rng, ctx, out);
    else out.push(ctx[t.slot] ?? '');
  }
  return out;
}

/** A description for the product fields in ctx ({brand, noun, adjective, material, ...}). */
export function describe(rng, ctx) {
  // An empty alternative (e.g. no closer) would leave a double space behind.
  const text = expand('description', rng, ctx, []).join('');
  return (text.includes('  ') ? text.replace(/ {2,}/g, ' ') : text).trim();
}
