// GET /metrics: Prometheus' text format from a real server, read back with a strict parser (helpers/prometheus-text.ts):
// counts match the requests made, histograms are cumulative with _count = requests, gauges read the admission queue
// at scrape time, and only the operator's env keys may scrape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/engine/backend';
import { MemoryKeyStore } from '../../src/keys/document';
import { generateKey } from '../../src/keys/format';
import { startJudgeServer, type JudgeServer } from '../../src/server';
import { JudgeMetrics, METRICS_CONTENT_TYPE } from '../../src/server/metrics';
import { deferred } from '../helpers/deferred';
import { EXACT_MODEL, uniformBackend } from '../helpers/exact-backend';
import { call, JUDGE_BODY } from '../helpers/http-call';
import { checkHistogram, histogramSeriesKey, parsePrometheusText, type MetricFamily } from '../helpers/prometheus-text';

const OPERATOR_KEY = 'operator-key-0123456789';
const customer = generateKey('customer', {});

/** A family's samples as `labels JSON → value`. */
function valuesOf(family: MetricFamily | undefined): Record<string, number> {
  if (!family) throw new Error('no such family');
  return Object.fromEntries(family.samples.map((s) => [JSON.stringify(s.labels), s.value]));
}

const series = (labels: Record<string, string>) => JSON.stringify(labels);

async function scrape(server: JudgeServer): Promise<Map<string, MetricFamily>> {
  const res = await call(server.url, '/metrics', { key: OPERATOR_KEY });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(METRICS_CONTENT_TYPE);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  return parsePrometheusText(res.text);
}

const gauge = (families: Map<string, MetricFamily>, name: string) => {
  expect(families.get(name)?.type).toBe('gauge');
  return families.get(name)!.samples[0].value;
};

describe('GET /metrics on a real server', () => {
  let server: JudgeServer;
  beforeAll(async () => {
    const store = new MemoryKeyStore();
    await store.addKey(customer.record);
    server = await startJudgeServer({
      apiKeys: [OPERATOR_KEY],
      backend: uniformBackend(),
      keys: { store },
      admission: { concurrency: 3, queueLength: 5 },
      log: () => undefined,
    });
  });
  afterAll(async () => server.close());

  it('counts requests by path, status and model; histograms are cumulative with _count = requests; tokens', async () => {
    const body = JSON.stringify(JUDGE_BODY);
    let inputTokens = 0;
    for (const key of [OPERATOR_KEY, OPERATOR_KEY, customer.key]) {
      const res = await call(server.url, '/v1/systemone', { key, body });
      expect(res.status).toBe(200);
      inputTokens += (res.body as { usage: { input_tokens: number } }).usage.input_tokens;
    }
    expect((await call(server.url, '/v1/systemone', { key: 'wrong', body })).status).toBe(401);
    expect((await call(server.url, '/v1/systemone', { body })).status).toBe(403);
    const invalid = JSON.stringify({ ...JUDGE_BODY, questions: { q: { type: 'choice', criteria: 'x' } } });
    expect((await call(server.url, '/v1/systemone', { key: OPERATOR_KEY, body: invalid })).status).toBe(422);
    expect((await call(server.url, '/v1/models', { key: customer.key })).status).toBe(200);
    expect((await call(server.url, '/no/such/route', { key: OPERATOR_KEY })).status).toBe(404);

    const families = await scrape(server);
    const model = EXACT_MODEL.id;
    expect(families.get('judge_requests_total')?.type).toBe('counter');
    expect(valuesOf(families.get('judge_requests_total'))).toEqual({
      [series({ path: '/v1/systemone', status: '200', model })]: 3,
      [series({ path: '/v1/systemone', status: '401', model: '' })]: 1,
      [series({ path: '/v1/systemone', status: '403', model: '' })]: 1,
      [series({ path: '/v1/systemone', status: '422', model: '' })]: 1,
      [series({ path: '/v1/models', status: '200', model: '' })]: 1,
      [series({ path: 'other', status: '404', model: '' })]: 1,
    });
    const durations = checkHistogram(families.get('judge_request_duration_seconds')!);
    expect(Object.fromEntries(durations)).toEqual({
      [histogramSeriesKey({ path: '/v1/systemone' })]: 6,
      [histogramSeriesKey({ path: '/v1/models' })]: 1,
      [histogramSeriesKey({ path: 'other' })]: 1,
    });
    const engine = checkHistogram(families.get('judge_engine_duration_seconds')!);
    expect(Object.fromEntries(engine)).toEqual({ [histogramSeriesKey({ model })]: 3 });
    expect(valuesOf(families.get('judge_input_tokens_total'))).toEqual({ [series({ model })]: inputTokens });
    expect(valuesOf(families.get('judge_output_tokens_total'))).toEqual({ [series({ model })]: 0 });
    expect(inputTokens).toBeGreaterThan(0);
    expect(gauge(families, 'judge_admission_in_flight')).toBe(0);
    expect(gauge(families, 'judge_admission_queue_depth')).toBe(0);
    expect(gauge(families, 'judge_admission_concurrency')).toBe(3);
    expect(gauge(families, 'judge_admission_queue_length')).toBe(5);
  });

  it('counts each scrape in the next one', async () => {
    const before = valuesOf((await scrape(server)).get('judge_requests_total'));
    const after = valuesOf((await scrape(server)).get('judge_requests_total'));
    const scrapes = series({ path: '/metrics', status: '200', model: '' });
    expect(after[scrapes]).toBe((before[scrapes] ?? 0) + 1);
  });

  it.each([
    ['a key from the key store → 403', { key: customer.key }, 403, 'permission_error', /operator/],
    ['no key → 403', {}, 403, 'permission_error', /Not authenticated/],
    ['a wrong key → 401', { key: 'wrong' }, 401, 'authentication_error', /Invalid API key/],
    [
      'POST with the operator key → 405',
      { key: OPERATOR_KEY, method: 'POST', body: '{}' },
      405,
      'method_not_allowed',
      /GET/,
    ],
  ])('%s, in the error envelope', async (_name, init, status, errorType, message) => {
    const res = await call(server.url, '/metrics', init);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ detail: { error_type: errorType, message: expect.stringMatching(message) } });
    expect(res.text).not.toContain('judge_requests_total');
  });
});

describe('admission gauges', () => {
  it('read the queue at scrape time: a request judged and one waiting, then none', async () => {
    const gate = deferred();
    const exact = uniformBackend();
    const gated: Backend = {
      kind: 'gated',
      models: () => exact.models(),
      countTokens: (model, text) => exact.countTokens(model, text),
      score: async (job) => (await gate.promise, exact.score(job)),
    };
    const server = await startJudgeServer({
      apiKeys: [OPERATOR_KEY],
      backend: gated,
      admission: { concurrency: 1, queueLength: 2 },
      log: () => undefined,
    });
    try {
      const body = JSON.stringify(JUDGE_BODY);
      const pending = [1, 2].map(() => call(server.url, '/v1/systemone', { key: OPERATOR_KEY, body }));
      for (let i = 0; i < 200 && server.admission.stats.waiting < 1; i++) await new Promise((r) => setTimeout(r, 5));
      const busy = await scrape(server);
      expect(gauge(busy, 'judge_admission_in_flight')).toBe(1);
      expect(gauge(busy, 'judge_admission_queue_depth')).toBe(1);
      gate.resolve();
      expect((await Promise.all(pending)).map((r) => r.status)).toEqual([200, 200]);
      const idle = await scrape(server);
      expect(gauge(idle, 'judge_admission_in_flight')).toBe(0);
      expect(gauge(idle, 'judge_admission_queue_depth')).toBe(0);
    } finally {
      gate.resolve();
      await server.close();
    }
  });
});

describe('JudgeMetrics', () => {
  it('escapes label values: a model named with quotes, a backslash and a line feed reads back as it was', () => {
    const metrics = new JudgeMetrics(new Set(['/v1/systemone']));
    const model = 'odd "model" \\ with\na line feed';
    metrics.observeRequest({ path: '/v1/systemone', status: 200, latency_ms: 3, model, input_tokens: 7 });
    const families = parsePrometheusText(metrics.render());
    expect(families.get('judge_requests_total')!.samples[0].labels).toEqual({
      path: '/v1/systemone',
      status: '200',
      model,
    });
    expect(families.get('judge_input_tokens_total')!.samples[0]).toMatchObject({ labels: { model }, value: 7 });
  });

  it('labels a path outside its routes "other", so unknown paths cannot grow the series', () => {
    const metrics = new JudgeMetrics(new Set(['/v1/models']));
    for (let i = 0; i < 5; i++) metrics.observeRequest({ path: `/random/${i}`, status: 404, latency_ms: 1 });
    const requests = parsePrometheusText(metrics.render()).get('judge_requests_total')!;
    expect(requests.samples).toEqual([
      { name: 'judge_requests_total', labels: { path: 'other', status: '404', model: '' }, value: 5 },
    ]);
  });

  it('puts an observation in the first bucket it does not exceed; one over the last bound only in +Inf', () => {
    const metrics = new JudgeMetrics(new Set());
    for (const seconds of [0.005, 0.0051, 500]) metrics.observeEngine('m', seconds);
    const engine = parsePrometheusText(metrics.render()).get('judge_engine_duration_seconds')!;
    const bucket = (le: string) => engine.samples.find((s) => s.labels.le === le)?.value;
    expect([bucket('0.005'), bucket('0.01'), bucket('120'), bucket('+Inf')]).toEqual([1, 2, 2, 3]);
    expect(engine.samples.find((s) => s.name.endsWith('_sum'))?.value).toBeCloseTo(500.0101);
  });
});

describe('the strict exposition parser of these tests', () => {
  const good =
    '# HELP x_total A counter.\n# TYPE x_total counter\nx_total{a="1",b="q\\"\\\\\\n"} 3\n' +
    '# TYPE h histogram\nh_bucket{le="0.1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 0.3\nh_count 2\ng 1.5e-3 1700000000000\n';

  it('reads a well-formed exposition', () => {
    const families = parsePrometheusText(good);
    expect(families.get('x_total')).toMatchObject({ type: 'counter', help: 'A counter.' });
    expect(families.get('x_total')!.samples[0].labels).toEqual({ a: '1', b: 'q"\\\n' });
    expect(Object.fromEntries(checkHistogram(families.get('h')!))).toEqual({ '[]': 2 });
    expect(families.get('g')!.samples[0]).toMatchObject({ value: 0.0015, timestamp: 1700000000000 });
  });

  it.each([
    ['a dash in a metric name', 'judge-requests 1\n'],
    ['an unquoted label value', 'x{a=b} 1\n'],
    ['an unknown escape', 'x{a="\\t"} 1\n'],
    ['an unclosed label value', 'x{a="b} 1\n'],
    ['a label name starting with __', 'x{__a="b"} 1\n'],
    ['a label twice', 'x{a="1",a="2"} 1\n'],
    ['no value', 'x{a="b"}\n'],
    ['a value that is not a number', 'x 1,5\n'],
    ['junk after the timestamp', 'x 1 2 3\n'],
    ['a timestamp that is not an integer', 'x 1 1.5\n'],
    ['TYPE after the samples', 'x 1\n# TYPE x counter\n'],
    ['an unknown type', '# TYPE x countr\n'],
    ['a malformed HELP', '# HELP\n'],
    ['an unknown escape in HELP', '# HELP x a\\tb\n'],
    ['a family split by another', 'x 1\ny 1\nx{a="1"} 1\n'],
    ['a series twice', 'x 1\nx 2\n'],
    ['a histogram bucket without le', '# TYPE h histogram\nh_bucket 1\n'],
    ['a histogram sample without a suffix', '# TYPE h histogram\nh 1\n'],
    ['no final line feed', 'x 1'],
  ])('rejects %s', (_name, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });

  it.each([
    ['buckets that are not cumulative', 'h_bucket{le="0.1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['a +Inf bucket that is not _count', 'h_bucket{le="0.1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 2\n'],
    ['no +Inf bucket', 'h_bucket{le="0.1"} 1\nh_sum 1\nh_count 1\n'],
  ])('checkHistogram rejects %s', (_name, samples) => {
    const family = parsePrometheusText(`# TYPE h histogram\n${samples}`).get('h')!;
    expect(() => checkHistogram(family)).toThrow();
  });
});
