// `systemone-judge calibrate` end to end: an OpenAI-compatible fake made over-confident by a known factor K
// (it answers q ∝ p^K instead of the true p), labelled lines whose labels follow p exactly, the command fits
// per-type temperatures through the configured backend, and the server loads the result.
//
// Labels "follow p exactly": every line asks each question ten times (ten annotators' votes, v0…v9) and the votes
// split as p does (p = 0.7 → seven yes, three no). Each line is then calibrated on its own, so any split of the
// lines keeps the truth, and the fit should land on K without sampling noise.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CalibrationFile } from '../../src/calibration/file';
import { calibrateCommand } from '../../src/cli/commands/calibrate';
import { loadConfig } from '../../src/config';
import { startJudgeServer } from '../../src/server';
import { labelsInPrompt, startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';

const K = 2.5;
const VOTES = 10;
const MODEL_ID = 'judge-overconfident-2026-01-01';

/** True distributions on a 0.1 grid (so ten votes split exactly), cycled over the lines. */
const TRUTH = {
  noul: [
    [0.7, 0.3],
    [0.9, 0.1],
    [0.4, 0.6],
    [0.2, 0.8],
    [0.6, 0.4],
    [0.8, 0.2],
  ],
  choice: [
    [0.4, 0.3, 0.2, 0.1],
    [0.7, 0.1, 0.1, 0.1],
    [0.1, 0.5, 0.2, 0.2],
    [0.3, 0.3, 0.3, 0.1],
    [0.1, 0.1, 0.2, 0.6],
  ],
  score: [
    [0.6, 0.3, 0.1],
    [0.2, 0.5, 0.3],
    [0.1, 0.2, 0.7],
    [0.3, 0.4, 0.3],
  ],
} as const;
type Kind = keyof typeof TRUTH;
const LINES = 30;
const CHOICES = { billing: 'charges and refunds', engineering: 'broken features', success: 'how-to', retention: null };

const truthOf = (line: number, kind: Kind): readonly number[] => TRUTH[kind][line % TRUTH[kind].length];
/** The over-confident model's distribution: p^K, renormalised. */
const overconfident = (p: readonly number[]) => {
  const q = p.map((x) => x ** K);
  const total = q.reduce((a, b) => a + b, 0);
  return q.map((x) => x / total);
};

/** Votes for one question: option index per voter, matching p exactly. */
function votes(p: readonly number[]): number[] {
  const out: number[] = [];
  p.forEach((share, option) => {
    for (let i = 0; i < Math.round(share * VOTES); i++) out.push(option);
  });
  expect(out).toHaveLength(VOTES);
  return out;
}

function labelledLine(line: number): Record<string, unknown> {
  const questions: Record<string, unknown> = {};
  const labels: Record<string, unknown> = {};
  const choiceKeys = Object.keys(CHOICES);
  votes(truthOf(line, 'noul')).forEach((option, v) => {
    questions[`refund_v${v}`] = { type: 'noul', instructions: 'QUESTION-noul: does the customer ask for a refund?' };
    labels[`refund_v${v}`] = option === 0;
  });
  votes(truthOf(line, 'choice')).forEach((option, v) => {
    questions[`team_v${v}`] = { type: 'choice', instructions: 'QUESTION-choice: which team?', criteria: CHOICES };
    labels[`team_v${v}`] = choiceKeys[option];
  });
  votes(truthOf(line, 'score')).forEach((option, v) => {
    questions[`anger_v${v}`] = {
      type: 'score',
      instructions: 'QUESTION-score: how angry?',
      criteria: ['calm', 'annoyed', 'furious'],
    };
    // Levels may be labelled by index or by the level itself.
    labels[`anger_v${v}`] = v % 2 === 0 ? option : ['calm', 'annoyed', 'furious'][option];
  });
  return { state: `Ticket CASE-${line}: I was charged twice.`, questions, labels };
}

let fake: FakeOpenAI;
let dir: string;
let configFile: string;

beforeAll(async () => {
  fake = await startFakeOpenAI({
    respond: (body) => {
      const prompt = body.messages.map((m) => m.content).join('\n');
      const line = Number(/CASE-(\d+)/.exec(prompt)![1]);
      const kind = /QUESTION-(noul|choice|score)/.exec(prompt)![1] as Kind;
      const q = overconfident(truthOf(line, kind));
      return { topLogprobs: labelsInPrompt(prompt).map((token, i) => ({ token, logprob: Math.log(q[i]) })) };
    },
  });
  dir = mkdtempSync(path.join(tmpdir(), 'judge-calibrate-'));
  configFile = path.join(dir, 'judge.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      apiKeys: ['k'],
      backend: { kind: 'openai', baseUrl: fake.baseUrl, upstreamModel: 'fake', id: MODEL_ID, concurrency: 8 },
    }),
  );
  writeFileSync(
    path.join(dir, 'labelled.jsonl'),
    Array.from({ length: LINES }, (_, i) => JSON.stringify(labelledLine(i))).join('\n') + '\n',
  );
});
afterAll(async () => fake.close());

async function runCalibrate(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    const code = await calibrateCommand.run(args);
    return { code, out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

describe('systemone-judge calibrate', () => {
  let file: CalibrationFile;

  it('recovers the over-confidence factor per type within 10 %; the ECE drops on the fit and the holdout', async () => {
    const out = path.join(dir, 'calibration.json');
    const result = await runCalibrate([
      '--data',
      path.join(dir, 'labelled.jsonl'),
      '--holdout',
      '0.2',
      '--seed',
      '7',
      '--out',
      out,
      '--config',
      configFile,
    ]);
    expect(result.err).toContain(`judged ${LINES}/${LINES} requests`);
    expect(result.code).toBe(0);
    file = JSON.parse(readFileSync(out, 'utf8'));
    expect(file).toMatchObject({ kind: 'systemone-judge-calibration', version: 1, models: [MODEL_ID] });
    expect(file.split).toEqual({ seed: 7, holdout: 0.2, trainLines: 24, holdoutLines: 6 });
    expect(file.data.answers).toBe(LINES * 3 * VOTES);
    for (const type of ['noul', 'choice', 'score'] as const) {
      const t = file.temperatures[type]!;
      expect(Math.abs(t / K - 1), `${type}: T = ${t}`).toBeLessThan(0.1);
      for (const split of [file.metrics.train, file.metrics.holdout!]) {
        const m = split[type]!;
        expect(m.after.ece).toBeLessThan(m.before.ece);
        expect(m.after.logLoss).toBeLessThan(m.before.logLoss);
        expect(m.after.brier).toBeLessThan(m.before.brier);
        expect(m.before.ece).toBeGreaterThan(0.05);
        expect(m.after.ece).toBeLessThan(0.02);
      }
    }
    expect(file.metrics.holdout!.all!.after.ece).toBeLessThan(file.metrics.holdout!.all!.before.ece);
    // The report prints every type, before → after, for both splits.
    expect(result.out).toMatch(/temperature noul +2\.\d{3}/);
    expect(result.out).toMatch(/holdout +score +60 +[\d.]+ → [\d.]+/);
    // The reliability diagram, next to the JSON by default.
    const svg = readFileSync(path.join(dir, 'calibration.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    for (const type of ['noul', 'choice', 'score']) expect(svg).toContain(`${type}  T = `);
  });

  it('is deterministic for a seed: the same data and seed give the same split and temperatures', async () => {
    const again = path.join(dir, 'again.json');
    const result = await runCalibrate([
      '--data',
      path.join(dir, 'labelled.jsonl'),
      '--seed',
      '7',
      '--out',
      again,
      '--config',
      configFile,
      '--diagram',
      path.join(dir, 'x.svg'),
    ]);
    expect(result.code).toBe(0);
    const second: CalibrationFile = JSON.parse(readFileSync(again, 'utf8'));
    expect(second.temperatures).toEqual(file.temperatures);
    expect(second.split).toEqual(file.split);
  });

  it('the server loads calibration.json: answers come back with the true probabilities', async () => {
    const config = loadConfig({ file: configFile, env: { JUDGE_CALIBRATION: path.join(dir, 'calibration.json') } });
    expect(config.temperatures).toEqual(file.temperatures);
    expect(config.calibration?.models).toEqual([MODEL_ID]);
    const server = await startJudgeServer({ ...config, port: 0, log: () => undefined });
    try {
      const { questions } = labelledLine(3) as { questions: Record<string, unknown> };
      const response = await fetch(`${server.url}/v1/systemone`, {
        method: 'POST',
        headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'jev-latest', state: 'Ticket CASE-3: I was charged twice.', questions }),
      });
      const body = (await response.json()) as {
        answers: Record<string, { noul?: number; probabilities?: Record<string, number> }>;
      };
      expect(body.answers.refund_v0.noul).toBeCloseTo(truthOf(3, 'noul')[0], 1);
      const team = Object.values(body.answers.team_v0.probabilities!);
      team.forEach((p, i) => expect(p).toBeCloseTo(truthOf(3, 'choice')[i], 1));
    } finally {
      await server.close();
    }
  });

  it('takes pre-computed answers without any backend, and names the line and field of bad data', async () => {
    const line = {
      state: 'x',
      questions: {
        ok: { type: 'noul', instructions: 'ok?' },
        team: { type: 'choice', criteria: { a: null, b: null } },
      },
      labels: { ok: true, team: 'b' },
      answers: {
        ok: { type: 'noul', noul: 0.9 },
        team: { type: 'choice', choice: 'a', probabilities: { a: 0.8, b: 0.2 }, confidence: 0.6 },
      },
    };
    const data = path.join(dir, 'answers.jsonl');
    writeFileSync(data, Array.from({ length: 20 }, () => JSON.stringify(line)).join('\n'));
    const ok = await runCalibrate(['--data', data, '--holdout', '0', '--out', path.join(dir, 'offline.json')]);
    expect(ok.code).toBe(0);
    const offline: CalibrationFile = JSON.parse(readFileSync(path.join(dir, 'offline.json'), 'utf8'));
    expect(offline.models).toEqual([]);
    expect(offline.split.holdoutLines).toBe(0);
    expect(offline.metrics.holdout).toBeUndefined();
    // Always yes at 0.9 → calibrated to 1 (T small); always "b" while 0.2 → T large enough to flip is impossible,
    // so the fit flattens it as far as it can.
    expect(offline.temperatures.noul!).toBeLessThan(0.1);
    expect(offline.temperatures.choice!).toBeGreaterThan(10);

    const bad = (patch: Record<string, unknown>) => {
      writeFileSync(data, JSON.stringify({ ...line, ...patch }) + '\n');
      return calibrateCommand.run(['--data', data, '--out', path.join(dir, 'bad.json')]);
    };
    await expect(bad({ labels: { nope: true } })).rejects.toThrow(
      `${data}:1 labels.nope: names no question of this line`,
    );
    await expect(bad({ labels: { team: 'c' } })).rejects.toThrow(
      `${data}:1 labels.team: must be one of the options ["a","b"]`,
    );
    await expect(bad({ labels: { ok: 'yes' } })).rejects.toThrow(`${data}:1 labels.ok: must be true or false`);
    await expect(bad({ answers: { ok: { type: 'noul', noul: 2 } } })).rejects.toThrow(
      `${data}:1 answers.ok.noul: must be a probability`,
    );
    await expect(bad({ labels: {} })).rejects.toThrow(
      `${data}:1 labels: must be an object naming at least one question`,
    );
  });

  it('refuses bad flags as usage errors', async () => {
    await expect(calibrateCommand.run([])).rejects.toThrow('--data <labelled.jsonl> is required');
    await expect(calibrateCommand.run(['--data', 'x', '--holdout', '1'])).rejects.toThrow(
      '--holdout must be a share in [0, 1)',
    );
    await expect(calibrateCommand.run(['--data', 'x', '--seed', '1.5'])).rejects.toThrow(
      '--seed must be an integer ≥ 0',
    );
  });
});
