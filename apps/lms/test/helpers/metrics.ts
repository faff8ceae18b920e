/** One sample of the Prometheus text format: `name{label="value",...} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a text exposition (comments skipped); label values unescaped. */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[name!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** A parsed scrape: its samples and lookups by name and a subset of the labels. */
export interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  samples: Sample[];
  /** The sum of the samples with this name whose labels include `labels` (0 when none). */
  value(name: string, labels?: Record<string, string>): number;
  /** Whether any sample has this name (and these labels). */
  has(name: string, labels?: Record<string, string>): boolean;
}

function matching(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export function readScrape(status: number, contentType: string | null, text: string): Scrape {
  const samples = status === 200 ? parseMetrics(text) : [];
  return {
    status,
    contentType,
    text,
    samples,
    value: (name, labels = {}) => matching(samples, name, labels).reduce((sum, s) => sum + s.value, 0),
    has: (name, labels = {}) => matching(samples, name, labels).length > 0,
  };
}

/** GET the metrics URL over HTTP, as Prometheus does. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  return readScrape(response.status, response.headers.get('content-type'), await response.text());
}

/** What moved between two scrapes: `after.value(...) - before.value(...)`. */
export function delta(before: Scrape, after: Scrape) {
  return (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
}
