// How numbers read in verdict sentences, reports and `compare`: a few significant digits, never
// more precision than a repeated measurement carries.

/** A figure with about three significant digits: 223, 48.1, 0.523; null/NaN -> '-'. */
export function fmtNumber(v, { digits = 3 } = {}) {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return '0';
  const abs = Math.abs(v);
  if (abs >= 10 ** digits) return Math.round(v).toLocaleString('en-US');
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
  return String(Number(v.toFixed(Math.min(decimals, 8))));
}

/** A p-value: 0.05, 0.167, 0.0123; below 0.001 in exponent form (2.71e-6). */
export function fmtP(p) {
  if (p === null || p === undefined || Number.isNaN(p)) return '-';
  if (p === 0) return '0';
  if (p < 0.001) {
    const [m, e] = p.toExponential(2).split('e');
    return `${Number(m)}e${Number(e)}`;
  }
  return String(Number(p.toPrecision(3)));
}

/** The significance level 1 - confidence without float noise (0.050000000000000044 -> 0.05). */
export const alphaOf = (confidence) => Number((1 - confidence).toFixed(6));

/** Bytes as KB/MB/GB (1024-based, as Elasticsearch's _cat). */
export function fmtBytes(b) {
  if (b === null || b === undefined || Number.isNaN(b)) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = b;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${fmtNumber(v)} ${units[i]}`;
}

/** Seconds as "18 min", "45 s", "1 h 05 min". */
export function fmtDuration(s) {
  if (s < 90) return `${Math.round(s)} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** A figure with its unit, for sentences: "48.1 ms", "0.5%" (ratios as percent), "120 req/s". */
export function fmtWithUnit(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) return '-';
  if (unit === 'ratio') return `${fmtNumber(v * 100)}%`;
  if (unit === 'bytes') return fmtBytes(v);
  return unit ? `${fmtNumber(v)} ${unit}` : fmtNumber(v);
}
