// The remote backend's scoring fields: a provider that says how it scored (another judge) has its method,
// calibration and coverage passed through on each answer and in GET /v1/models; one that does not is "remote" with
// calibration left out; malformed fields are a 502 naming the field.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteBackend } from '../../../src/backends/remote';
import { BackendError, type ScoreJob, type ScoreResult, type ScoringMethod } from '../../../src/engine/backend';
import { JudgeEngine } from '../../../src/engine/engine';
import { startJudgeServer, type JudgeServer } from '../../../src/server';
import { EXACT_MODEL, ExactBackend } from '../../helpers/exact-backend';

const KEY = 'upstream-key-123456';
const request = {
  model: EXACT_MODEL.id,
  state: { ticket: 'x' },
  questions: { n: { type: 'noul', instructions: 'q' }, c: { type: 'choice', criteria: { a: null, b: null } } },
};

/** An upstream backend that says how it scored: top_logprobs, calibrated, 0.9 of the mass on the labels. */
class SayingBackend extends ExactBackend {
  readonly said: ScoringMethod = { method: 'top_logprobs', calibrated: true };
  override async score(job: ScoreJob): Promise<ScoreResult> {
    const result = await super.score(job);
    return { ...result, scores: result.scores.map((s) => ({ ...s, coveredMass: 0.9 })), scoring: this.said };
  }
  scoringOf(): Promise<ScoringMethod> {
    return Promise.resolve(this.said);
  }
}

describe('RemoteBackend scoring fields through another judge', () => {
  let silent: JudgeServer;
  let saying: JudgeServer;
  const probabilities = (q: { options: string[] }) => q.options.map((_, i) => (i === 0 ? 0.25 : 0.75));

  beforeAll(async () => {
    const quiet = { apiKeys: [KEY], log: () => undefined };
    silent = await startJudgeServer({ ...quiet, backend: new ExactBackend(probabilities) });
    saying = await startJudgeServer({ ...quiet, backend: new SayingBackend(probabilities) });
  });
  afterAll(async () => {
    await silent.close();
    await saying.close();
  });

  it("passes the provider's method, calibration and coverage through on every answer and in /v1/models", async () => {
    const backend = await createRemoteBackend({ baseUrl: saying.url, apiKey: KEY });
    const engine = new JudgeEngine({ backend });
    const { response } = await engine.judge(request);
    for (const answer of Object.values(response.answers)) {
      expect(answer).toMatchObject({ method: 'top_logprobs', calibrated: true, coverage: 0.9 });
    }
    const listed = await engine.listModelsWithScoring();
    expect(listed.find((m) => m.name === EXACT_MODEL.id)?.scoring).toEqual({
      method: 'top_logprobs',
      calibrated: true,
    });
  });

  it('a provider that does not say: method "remote", calibrated and coverage left out, "remote" in /v1/models', async () => {
    const engine = new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: silent.url, apiKey: KEY }) });
    const { response } = await engine.judge(request);
    for (const answer of Object.values(response.answers)) {
      expect(answer.method).toBe('remote');
      expect(answer).not.toHaveProperty('calibrated');
      expect(answer).not.toHaveProperty('coverage');
    }
    const listed = await engine.listModelsWithScoring();
    expect(listed.map((m) => m.scoring)).toEqual(listed.map(() => ({ method: 'remote' })));
  });
});

describe('RemoteBackend scoring fields from a hand-written provider', () => {
  let provider: Server;
  let url: string;
  let answerFields: Record<string, unknown> = {};
  let listing: Record<string, unknown> = {};

  beforeAll(async () => {
    provider = createServer((req, res) => {
      const body =
        req.url === '/v1/models'
          ? { models: [{ name: 'm-1', description: 'd', release_date: '2026-01-01', ...listing }] }
          : {
              model: 'm-1',
              answers: { n: { type: 'noul', noul: 0.2, ...answerFields } },
              usage: { input_tokens: 3, output_tokens: 0 },
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => provider.close(() => r())));

  const one = { model: 'm-1', state: 's', questions: { n: { type: 'noul', instructions: 'q' } } };

  it('learns the method from answers when the model list does not say it, and keeps calibration unknown', async () => {
    listing = {};
    answerFields = { method: 'samples', coverage: 0.5 };
    const backend = await createRemoteBackend({ baseUrl: url, apiKey: 'k' });
    expect(await backend.scoringOf('m-1')).toEqual({ method: 'remote' });
    const { response } = await new JudgeEngine({ backend }).judge(one);
    expect(response.answers.n).toEqual({
      type: 'noul',
      noul: expect.closeTo(0.2, 12),
      method: 'samples',
      coverage: 0.5,
    });
    expect(await backend.scoringOf('m-1')).toEqual({ method: 'samples' });
  });

  it("reads the model list's scoring, calibrated false included", async () => {
    listing = { scoring: { method: 'samples', calibrated: false } };
    answerFields = {};
    const backend = await createRemoteBackend({ baseUrl: url, apiKey: 'k' });
    expect(await backend.scoringOf('m-1')).toEqual({ method: 'samples', calibrated: false });
  });

  it.each([
    ['a method that is not a name', { method: 'Top LogProbs!' }, /answers\["n"\]\.method is not a method name/],
    ['a method that is not a string', { method: 3 }, /answers\["n"\]\.method/],
    ['calibrated not a boolean', { calibrated: 'yes' }, /answers\["n"\]\.calibrated is not a boolean/],
    ['coverage above 1', { coverage: 1.2 }, /answers\["n"\]\.coverage is not a number in \[0, 1\]/],
    ['coverage not a number', { coverage: '0.9' }, /answers\["n"\]\.coverage/],
  ])('%s → 502 upstream_invalid_response naming the field', async (_name, fields, message) => {
    listing = {};
    answerFields = fields;
    const engine = new JudgeEngine({ backend: await createRemoteBackend({ baseUrl: url, apiKey: 'k' }) });
    const error = await engine.judge(one).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe('upstream_invalid_response');
    expect((error as BackendError).message).toMatch(message);
  });

  it('a malformed scoring in the model list → 502 naming models[0].scoring', async () => {
    listing = { scoring: { method: 'x', calibrated: 1 } };
    const error = await createRemoteBackend({ baseUrl: url, apiKey: 'k' }).catch((e: unknown) => e);
    expect((error as BackendError).message).toMatch(/models\[0\]\.scoring\.calibrated is not a boolean/);
    listing = { scoring: 'exact' };
    const again = await createRemoteBackend({ baseUrl: url, apiKey: 'k' }).catch((e: unknown) => e);
    expect((again as BackendError).message).toMatch(/models\[0\]\.scoring is not an object/);
  });
});
