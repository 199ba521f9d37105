// Progress of a load: a bar on a terminal (documents/s, ETA, the tenant being loaded and how
// many are complete), otherwise one plain line every few seconds, which is what a CI log or
// `make up > file` wants.
import cliProgress from 'cli-progress';

const fmtRate = (r) => (r >= 1000 ? `${(r / 1000).toFixed(1)}k` : String(Math.round(r)));
const fmtEta = (s) => (Number.isFinite(s) ? (s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`) : '-');

export class Progress {
  /**
   * @param tenants   [{ id, expected_products }] in load order
   * @param acked     Map tenant id -> documents acknowledged (the loader's)
   * @param mode      'bar' | 'plain' | 'none' (default: bar on a TTY, else plain)
   */
  constructor({ label = 'seed', tenants, acked, stream = process.stderr, mode, intervalMs = Number(process.env.SEED_PROGRESS_INTERVAL_MS) || 5000 }) {
    Object.assign(this, { label, tenants, acked, stream, intervalMs });
    this.mode = mode ?? (stream.isTTY ? 'bar' : 'plain');
    this.total = tenants.reduce((a, t) => a + t.expected_products, 0);
    this.done = 0;
    this.started = Date.now();
  }

  start() {
    if (this.mode === 'bar') {
      this.bar = new cliProgress.SingleBar(
        {
          format: `${this.label} {bar} {percentage}% | {value}/{total} docs | {rate} docs/s | ETA {etaf} | tenants {tdone}/{tcount} | {current}`,
          hideCursor: true,
          etaBuffer: 50,
          fps: 5,
          stream: this.stream,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(this.total, 0, this.#payload());
    } else if (this.mode === 'plain') {
      this.timer = setInterval(() => this.stream.write(`${this.line()}\n`), this.intervalMs);
      this.timer.unref();
    }
    return this;
  }

  /** Called by the loader on every acknowledged batch. */
  advance(n) {
    this.done += n;
    if (this.bar) this.bar.update(this.done, this.#payload());
  }

  #payload() {
    const elapsed = (Date.now() - this.started) / 1000;
    const rate = elapsed > 0 ? this.done / elapsed : 0;
    // Several tenants load at once: show the complete count and the biggest one still loading.
    let complete = 0;
    let t = null;
    for (const x of this.tenants) {
      const a = this.acked.get(x.id) ?? 0;
      if (a >= x.expected_products) complete += 1;
      else if (a > 0 && (!t || x.expected_products > t.expected_products)) t = x;
    }
    t ??= this.tenants.find((x) => (this.acked.get(x.id) ?? 0) < x.expected_products);
    return {
      rate: fmtRate(rate),
      etaf: rate > 0 ? fmtEta((this.total - this.done) / rate) : '-',
      tdone: complete,
      tcount: this.tenants.length,
      current: t ? `${t.id} ${this.acked.get(t.id) ?? 0}/${t.expected_products}` : 'done',
    };
  }

  line() {
    const p = this.#payload();
    const pct = this.total ? ((100 * this.done) / this.total).toFixed(1) : '100.0';
    return `${this.label}: ${this.done}/${this.total} docs (${pct}%), ${p.rate} docs/s, ETA ${p.etaf}, tenants ${p.tdone}/${p.tcount} complete, loading ${p.current}`;
  }

  stop() {
    clearInterval(this.timer);
    if (this.bar) {
      this.bar.update(this.done, this.#payload());
      this.bar.stop();
    }
  }
}
