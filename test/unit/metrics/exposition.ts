/** The samples of a Prometheus text exposition, keyed by `name{label="value",…}` with labels sorted. */
export class Exposition {
  readonly samples = new Map<string, number>();
  readonly types = new Map<string, string>();
  readonly helps = new Map<string, string>();

  constructor(readonly text: string) {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (meta) {
        (meta[1] === 'TYPE' ? this.types : this.helps).set(meta[2], meta[3]);
        continue;
      }
      const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!sample) throw new Error(`not an exposition line: ${line}`);
      const labels = sample[2] ? [...sample[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]] as const) : [];
      this.samples.set(key(sample[1], Object.fromEntries(labels)), Number(sample[3]));
    }
  }

  /** The value of one sample; undefined when the series is absent. */
  value(name: string, labels: Record<string, string | number> = {}): number | undefined {
    return this.samples.get(key(name, labels));
  }

  /** Every sample of a metric name as `{labels…, value}` rows. */
  series(name: string): Array<Record<string, string | number>> {
    const rows: Array<Record<string, string | number>> = [];
    for (const [k, v] of this.samples) {
      const m = /^([^{]+)(?:\{(.*)\})?$/.exec(k)!;
      if (m[1] !== name) continue;
      const labels = m[2] ? Object.fromEntries([...m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]])) : {};
      rows.push({ ...labels, value: v });
    }
    return rows;
  }
}

function key(name: string, labels: Record<string, string | number>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${labels[k]}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
}
