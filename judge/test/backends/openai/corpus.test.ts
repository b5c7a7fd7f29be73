// The JevBench-240 corpus through the real server and the OpenAI-compatible backend (deterministic fake model):
// every request accepted, valid shapes; and batch independence (alone vs with the case's other questions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAIBackend } from '../../../src/backends/openai';
import { JudgeEngine } from '../../../src/engine/engine';
import type { Answer, SystemOneResponse } from '../../../src/protocol/types';
import { startJudgeServer, type JudgeServer } from '../../../src/server';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-logprobs';
import { loadCorpus } from '../../helpers/repo';

const KEY = 'corpus-key-0123456789';
const PINNED = 'judge-openai-fake-2026-01-01';
const corpus = loadCorpus();
let fake: FakeOpenAI;
let server: JudgeServer;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  server = await startJudgeServer({
    apiKeys: [KEY],
    backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'fake-model', id: PINNED, concurrency: 8 },
    log: () => undefined,
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

function checkAnswer(question: { type: string; criteria?: unknown }, answer: Answer): void {
  expect(answer.type).toBe(question.type);
  if (answer.type === 'noul') {
    expect(answer.noul).toBeGreaterThanOrEqual(0);
    expect(answer.noul).toBeLessThanOrEqual(1);
    return;
  }
  const labels =
    answer.type === 'choice'
      ? Object.keys(question.criteria as object)
      : (question.criteria as unknown[]).map((_, i) => String(i));
  expect(Object.keys(answer.probabilities)).toEqual(labels);
  const values = Object.values(answer.probabilities);
  expect(Math.abs(values.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-6);
  for (const p of values) expect(p >= 0 && p <= 1).toBe(true);
  expect(answer.confidence >= 0 && answer.confidence <= 1).toBe(true);
  if (answer.type === 'choice') expect(labels).toContain(answer.choice);
  else {
    expect(answer.legend).toEqual(Object.fromEntries((question.criteria as unknown[]).map((c, i) => [String(i), c])));
    expect(answer.score >= 0 && answer.score <= labels.length - 1).toBe(true);
  }
}

describe('JevBench-240 corpus', () => {
  it('has 240 cases', () => {
    expect(corpus).toHaveLength(240);
  });

  it("every request is accepted and answered with valid shapes and the caller's labels", async () => {
    const failures: string[] = [];
    for (let start = 0; start < corpus.length; start += 8) {
      await Promise.all(
        corpus.slice(start, start + 8).map(async (c) => {
          const response = await fetch(`${server.url}/v1/systemone`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'jev-latest', state: c.state, questions: c.questions }),
          });
          if (response.status !== 200) {
            failures.push(`${c.id}: ${response.status} ${await response.text()}`);
            return;
          }
          const body = (await response.json()) as SystemOneResponse;
          expect(body.model).toBe(PINNED);
          expect(Object.keys(body.answers)).toEqual(Object.keys(c.questions));
          for (const [name, question] of Object.entries(c.questions)) checkAnswer(question, body.answers[name]);
          expect(body.usage.input_tokens).toBeGreaterThan(0);
        }),
      );
    }
    expect(failures).toEqual([]);
  });

  it('batch independence: each question alone equals it asked with its case, within 1e-9', async () => {
    const engine = new JudgeEngine({
      backend: new OpenAIBackend({ baseUrl: fake.baseUrl, upstreamModel: 'fake-model', id: PINNED, concurrency: 8 }),
    });
    // Every 12th case (20 cases, one per domain), every question of each.
    for (const c of corpus.filter((_, i) => i % 12 === 0)) {
      const together = (await engine.judge({ model: PINNED, state: c.state, questions: c.questions })).response.answers;
      for (const [name, question] of Object.entries(c.questions)) {
        const alone = (await engine.judge({ model: PINNED, state: c.state, questions: { [name]: question } })).response
          .answers[name];
        const a = together[name];
        expect(alone.type).toBe(a.type);
        if (a.type === 'noul' && alone.type === 'noul') expect(Math.abs(a.noul - alone.noul)).toBeLessThan(1e-9);
        if ((a.type === 'choice' || a.type === 'score') && alone.type === a.type) {
          for (const key of Object.keys(a.probabilities))
            expect(Math.abs(a.probabilities[key] - alone.probabilities[key])).toBeLessThan(1e-9);
          expect(Math.abs(a.confidence - alone.confidence)).toBeLessThan(1e-9);
        }
      }
    }
  });
});
