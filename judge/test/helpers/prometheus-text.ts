// A strict parser of Prometheus' text exposition format 0.0.4, for tests. It throws, naming the line, on anything
// the format does not allow: metric and label names, label syntax and escapes, values, timestamps, HELP escapes,
// TYPE after samples or twice, a family split by another, histogram/summary sample names and `le`/`quantile`
// labels, a series twice, a text without its final line feed. (Stricter than Prometheus in one way: no blanks
// inside the braces.) checkHistogram then checks a histogram's buckets.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const LABEL_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' };
const HELP_ESCAPES: Record<string, string> = { '\\': '\\', n: '\n' };

class ParseError extends Error {}

/** A sample value as Go's ParseFloat reads it (with Inf and NaN). */
export function parseValue(text: string): number {
  if (/^[+-]?Inf$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (text === 'NaN') return NaN;
  if (!FLOAT.test(text)) throw new ParseError(`not a number: ${JSON.stringify(text)}`);
  return Number(text);
}

/** Reads escaped text from `start` until `stop` (or the end): the text and the index of `stop`. */
function unescape(text: string, start: number, stop: string, escapes: Record<string, string>) {
  let value = '';
  let i = start;
  for (; i < text.length && text[i] !== stop; i++) {
    if (text[i] !== '\\') value += text[i];
    else if (Object.hasOwn(escapes, text[i + 1])) value += escapes[text[++i]];
    else throw new ParseError(`bad escape ${JSON.stringify(text.slice(i, i + 2))}`);
  }
  return { value, end: i };
}

/** The label set `{a="x",b="y"}` starting at `start` (the `{`): the labels and the index after the `}`. */
function parseLabels(text: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (text[i] !== '}') {
    const name = /^[^=]*/.exec(text.slice(i))![0];
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new ParseError(`bad label name ${JSON.stringify(name)}`);
    if (Object.hasOwn(labels, name)) throw new ParseError(`label ${name} twice`);
    i += name.length;
    if (text.slice(i, i + 2) !== '="') throw new ParseError(`label ${name} needs ="value"`);
    const { value, end } = unescape(text, i + 2, '"', LABEL_ESCAPES);
    if (end >= text.length) throw new ParseError(`label ${name}'s value is not closed`);
    labels[name] = value;
    i = end + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new ParseError(`expected , or } after label ${name}`);
  }
  return { labels, end: i + 1 };
}

function parseSample(line: string): Sample {
  const name = /^[^{ \t]*/.exec(line)![0];
  if (!METRIC_NAME.test(name)) throw new ParseError(`bad metric name ${JSON.stringify(name)}`);
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    const parsed = parseLabels(line, name.length);
    labels = parsed.labels;
    rest = line.slice(parsed.end);
  }
  const fields = /^[ \t]+(\S+)(?:[ \t]+(\S+))?[ \t]*$/.exec(rest);
  if (!fields) throw new ParseError('expected a value and an optional timestamp');
  const sample: Sample = { name, labels, value: parseValue(fields[1]) };
  if (fields[2] !== undefined) {
    if (!/^-?\d+$/.test(fields[2])) throw new ParseError(`bad timestamp ${fields[2]}`);
    sample.timestamp = Number(fields[2]);
  }
  return sample;
}

/** Checks a sample's name and labels against its family's type. */
function checkSampleOfType(sample: Sample, family: MetricFamily): void {
  if (family.type !== 'histogram' && family.type !== 'summary') {
    if (sample.name !== family.name) throw new ParseError(`${sample.name} in family ${family.name}`);
    return;
  }
  const isBucket = family.type === 'histogram' && sample.name === `${family.name}_bucket`;
  const isQuantile = family.type === 'summary' && sample.name === family.name;
  if (sample.name === family.name && !isQuantile) throw new ParseError(`a histogram has only _bucket/_sum/_count`);
  const bound = isBucket ? 'le' : isQuantile ? 'quantile' : undefined;
  if (bound) parseValue(sample.labels[bound] ?? `(no ${bound} label)`);
  else if ('le' in sample.labels) throw new ParseError('only _bucket samples have an le label');
}

/** The parse of one exposition, line by line. */
class Exposition {
  readonly families = new Map<string, MetricFamily>();
  private readonly typed = new Set<string>();
  private readonly closed = new Set<string>();
  private readonly series = new Set<string>();
  private current?: string;

  line(line: string): void {
    if (line.trim() === '') return;
    const name = line.startsWith('#') ? this.comment(line) : this.sample(line);
    if (name === undefined || name === this.current) return;
    if (this.closed.has(name)) throw new ParseError(`family ${name} appears again after another`);
    if (this.current !== undefined) this.closed.add(this.current);
    this.current = name;
  }

  private family(name: string): MetricFamily {
    if (this.closed.has(name)) throw new ParseError(`family ${name} appears again after another`);
    let family = this.families.get(name);
    if (!family) this.families.set(name, (family = { name, type: 'untyped', samples: [] }));
    return family;
  }

  /** A `# HELP` or `# TYPE` line (other comments are ignored): its family's name. */
  private comment(line: string): string | undefined {
    const match = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line);
    if (!match) {
      if (/^#[ \t]*(HELP|TYPE)\b/.test(line)) throw new ParseError('malformed HELP/TYPE line');
      return undefined;
    }
    const [, keyword, name, rest = ''] = match;
    if (!METRIC_NAME.test(name)) throw new ParseError(`bad metric name ${JSON.stringify(name)}`);
    const family = this.family(name);
    if (keyword === 'HELP') {
      if (family.help !== undefined) throw new ParseError(`second HELP for ${name}`);
      family.help = unescape(rest, 0, '\n', HELP_ESCAPES).value;
      return name;
    }
    if (!TYPES.has(rest as MetricType)) throw new ParseError(`unknown type ${JSON.stringify(rest)}`);
    if (this.typed.has(name) || family.samples.length > 0) throw new ParseError(`TYPE of ${name} twice or late`);
    this.typed.add(name);
    family.type = rest as MetricType;
    return name;
  }

  private sample(line: string): string {
    const sample = parseSample(line);
    const family = this.family(this.familyName(sample.name));
    checkSampleOfType(sample, family);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (this.series.has(key)) throw new ParseError(`series ${key} twice`);
    this.series.add(key);
    family.samples.push(sample);
    return family.name;
  }

  /** The family of a sample name: a typed histogram or summary for its suffixed samples, else the name itself. */
  private familyName(sampleName: string): string {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      const base = sampleName.slice(0, -suffix.length);
      const type = sampleName.endsWith(suffix) ? this.families.get(base)?.type : undefined;
      if (type === 'histogram' || (type === 'summary' && suffix !== '_bucket')) return base;
    }
    return sampleName;
  }
}

/** Parses a whole exposition; throws naming the first line that breaks the format. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const exposition = new Exposition();
  text.split('\n').forEach((line, index) => {
    try {
      exposition.line(line);
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
      throw new Error(`line ${index + 1} ${JSON.stringify(line)}: ${error.message}`);
    }
  });
  return exposition.families;
}

/** A histogram series' labels without `le`, as JSON: its key. */
export const histogramSeriesKey = (labels: Record<string, string>): string =>
  JSON.stringify(Object.entries(labels).filter(([name]) => name !== 'le'));

/**
 * Checks every series of a histogram: buckets in increasing `le` with cumulative (non-decreasing) counts, the last
 * one +Inf and equal to `_count`, and a `_sum`. Returns `_count` per series (histogramSeriesKey).
 */
export function checkHistogram(family: MetricFamily): Map<string, number> {
  if (family.type !== 'histogram') throw new Error(`${family.name} is a ${family.type}, not a histogram`);
  const counts = new Map<string, number>();
  for (const key of new Set(family.samples.map((s) => histogramSeriesKey(s.labels)))) {
    const samples = family.samples.filter((s) => histogramSeriesKey(s.labels) === key);
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    if (!count || !samples.some((s) => s.name === `${family.name}_sum`)) {
      throw new Error(`${family.name}${key}: no _count or no _sum`);
    }
    buckets.forEach((bucket, i) => {
      const previous = buckets[i - 1];
      if (!previous) return;
      if (!(parseValue(bucket.labels.le) > parseValue(previous.labels.le))) {
        throw new Error(`${family.name}${key}: le not increasing`);
      }
      if (bucket.value < previous.value) throw new Error(`${family.name}${key}: buckets not cumulative`);
    });
    const last = buckets.at(-1);
    if (last?.labels.le !== '+Inf' || last.value !== count.value) {
      throw new Error(`${family.name}${key}: the last bucket is not +Inf, or not _count`);
    }
    counts.set(key, count.value);
  }
  return counts;
}
