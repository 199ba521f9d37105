// Small helpers the console's views share: elements, numbers, durations.

/** h('div', { class: 'x', onclick: fn }, child, 'text') -> an element */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

export const num = (x, digits = 0) => (x === null || x === undefined || Number.isNaN(x) ? '–' : Number(x).toLocaleString('en-US', { maximumFractionDigits: digits }));
export const pct = (x) => (x === null || x === undefined ? '–' : `${Math.round(x * 1000) / 10}%`);
export const ms = (x) => (x === null || x === undefined ? '–' : `${num(x, x < 10 ? 1 : 0)} ms`);

/** seconds -> "2 min 5 s", "41 s" */
export function duration(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return '–';
  if (s < 60) return `${Math.round(s * 10) / 10} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** Replaces el's children with `children`. */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
