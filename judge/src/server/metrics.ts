// The server's metrics for GET /metrics, in Prometheus' text exposition format 0.0.4: counters and histograms that
// the server feeds (one observation per request log line, one per engine answer) and gauges read at scrape time.
// Pure: nothing here does I/O; render() builds the whole text.

export const METRICS_PATH = '/metrics';
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Histogram buckets in seconds: 5 ms up to the admission deadline's default (120 s). */
export const LATENCY_BUCKETS_S: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

/** The `path` label of a request outside `routes` (unknown paths must not grow the series without bound). */
export const OTHER_PATH = 'other';

/** What one request's log line tells the metrics (the server's LogLine has these fields). */
export interface RequestSample {
  path: string;
  status: number;
  latency_ms: number;
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
}

/** A label value as the format writes it: backslash, double quote and line feed escaped. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text as the format writes it: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value: Go's float syntax, with +Inf/-Inf/NaN spelled as Prometheus reads them. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** `a="x",b="y"` for label names and values in order. */
function labelText(names: readonly string[], values: readonly string[]): string {
  return names.map((name, i) => `${name}="${escapeLabelValue(values[i])}"`).join(',');
}

const braced = (labels: string) => (labels === '' ? '' : `{${labels}}`);

interface Family {
  lines(): string[];
}

function header(name: string, help: string, type: 'counter' | 'gauge' | 'histogram'): string[] {
  return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
}

/** One counter series: add to `value`. */
interface CounterSeries {
  value: number;
}

/** A counter with labels; a series appears when it is first asked for. */
class Counter implements Family {
  private readonly series = new Map<string, CounterSeries>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
  ) {}

  /** The series of these label values (made on first use); callers keep it to count without a lookup. */
  at(labelValues: readonly string[]): CounterSeries {
    const key = labelText(this.labelNames, labelValues);
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = { value: 0 }));
    return series;
  }

  lines(): string[] {
    const out = header(this.name, this.help, 'counter');
    for (const [labels, { value }] of this.series) out.push(`${this.name}${braced(labels)} ${formatValue(value)}`);
    return out;
  }
}

interface HistogramSeries {
  /** Observations in each bucket alone (not cumulative), index-aligned with the buckets. */
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram with labels: cumulative `_bucket` lines (le), then `_sum` and `_count`. */
class Histogram implements Family {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {}

  /** The series of these label values (made on first use); callers keep it to observe without a lookup. */
  at(labelValues: readonly string[]): HistogramSeries {
    const key = labelText(this.labelNames, labelValues);
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = { counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    return series;
  }

  /** Counts `value` in the first bucket whose bound it does not exceed (over the last: in +Inf only). */
  observe(series: HistogramSeries, value: number): void {
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && value > buckets[i]) i++;
    if (i < buckets.length) series.counts[i]++;
    series.sum += value;
    series.count++;
  }

  lines(): string[] {
    const out = header(this.name, this.help, 'histogram');
    for (const [labels, { counts, sum, count }] of this.series) {
      const prefix = labels === '' ? '' : `${labels},`;
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += counts[i];
        out.push(`${this.name}_bucket{${prefix}le="${formatValue(bound)}"} ${cumulative}`);
      });
      out.push(`${this.name}_bucket{${prefix}le="+Inf"} ${count}`);
      out.push(`${this.name}_sum${braced(labels)} ${formatValue(sum)}`);
      out.push(`${this.name}_count${braced(labels)} ${count}`);
    }
    return out;
  }
}

/** A gauge without labels, read when the metrics are rendered. */
class Gauge implements Family {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly read: () => number,
  ) {}

  lines(): string[] {
    return [...header(this.name, this.help, 'gauge'), `${this.name} ${formatValue(this.read())}`];
  }
}

/** The series one kind of request adds to: its count and duration, and (once it has some) its model's tokens. */
interface RequestSeries {
  requests: CounterSeries;
  duration: HistogramSeries;
  inputTokens?: CounterSeries;
  outputTokens?: CounterSeries;
}

/** The judge server's metrics. `routes`: the paths kept as `path` labels; any other is `other`. */
export class JudgeMetrics {
  private readonly requests = new Counter(
    'judge_requests_total',
    'Requests answered, by route, status and model (model is empty when no model answered).',
    ['path', 'status', 'model'],
  );
  private readonly requestDuration = new Histogram(
    'judge_request_duration_seconds',
    'Time from a request to its answer, by route.',
    ['path'],
    LATENCY_BUCKETS_S,
  );
  private readonly engineDuration = new Histogram(
    'judge_engine_duration_seconds',
    'Time the engine (its backend: upstream calls or local model runs) took to answer a judged request.',
    ['model'],
    LATENCY_BUCKETS_S,
  );
  private readonly inputTokens = new Counter('judge_input_tokens_total', 'Input tokens processed, by model.', [
    'model',
  ]);
  private readonly outputTokens = new Counter('judge_output_tokens_total', 'Output tokens generated, by model.', [
    'model',
  ]);
  private readonly gauges: Gauge[] = [];
  /** The series of each kind of request (route, status, model) and of each model, found once. */
  private readonly byRequest = new Map<string, RequestSeries>();
  private readonly byModel = new Map<string, HistogramSeries>();

  constructor(private readonly routes: ReadonlySet<string>) {}

  /** One answered request, from its log line. */
  observeRequest(sample: RequestSample): void {
    const path = this.routes.has(sample.path) ? sample.path : OTHER_PATH;
    const model = sample.model ?? '';
    const series = this.requestSeries(path, sample.status, model);
    series.requests.value++;
    this.requestDuration.observe(series.duration, sample.latency_ms / 1000);
    if (sample.input_tokens !== undefined) {
      (series.inputTokens ??= this.inputTokens.at([model])).value += sample.input_tokens;
    }
    if (sample.output_tokens !== undefined) {
      (series.outputTokens ??= this.outputTokens.at([model])).value += sample.output_tokens;
    }
  }

  /** One job the engine answered, and how long it took. */
  observeEngine(model: string, seconds: number): void {
    let series = this.byModel.get(model);
    if (!series) this.byModel.set(model, (series = this.engineDuration.at([model])));
    this.engineDuration.observe(series, seconds);
  }

  private requestSeries(path: string, status: number, model: string): RequestSeries {
    // A status has no space and a route none either: the key is unambiguous.
    const key = `${status} ${path} ${model}`;
    let series = this.byRequest.get(key);
    if (!series) {
      series = {
        requests: this.requests.at([path, String(status), model]),
        duration: this.requestDuration.at([path]),
      };
      this.byRequest.set(key, series);
    }
    return series;
  }

  /** A gauge whose value `read` gives at each render. */
  gauge(name: string, help: string, read: () => number): void {
    this.gauges.push(new Gauge(name, help, read));
  }

  render(): string {
    const families: Family[] = [
      this.requests,
      this.requestDuration,
      this.engineDuration,
      this.inputTokens,
      this.outputTokens,
      ...this.gauges,
    ];
    return families.flatMap((family) => family.lines()).join('\n') + '\n';
  }
}

/** What the admission gauges read (server/admission.ts's Admission). */
export interface AdmissionView {
  readonly stats: { running: number; waiting: number };
  readonly settings: { concurrency: number; queueLength: number };
}

/** The admission queue's gauges: requests judged and waiting now, and the caps they run against. */
export function watchAdmission(metrics: JudgeMetrics, admission: AdmissionView): void {
  metrics.gauge('judge_admission_in_flight', 'Requests being judged now (admission slots taken).', () => {
    return admission.stats.running;
  });
  metrics.gauge('judge_admission_queue_depth', 'Requests waiting for an admission slot now.', () => {
    return admission.stats.waiting;
  });
  metrics.gauge('judge_admission_concurrency', 'Admission slots (admission.concurrency).', () => {
    return admission.settings.concurrency;
  });
  metrics.gauge('judge_admission_queue_length', 'Requests that may wait for a slot (admission.queueLength).', () => {
    return admission.settings.queueLength;
  });
}
