// systemone-judge calibrate: fit one temperature per question type on labelled requests (JSONL), report ECE, Brier
// and log loss before/after (per type, on the fit and on a held-out share), write calibration.json and a
// reliability diagram (SVG). Lines without "answers" are judged by the configured backend at temperature 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createBackend } from '../../backends';
import { calibrate } from '../../calibration/calibrate';
import { parseLabelledJsonl } from '../../calibration/data';
import { calibrationReport } from '../../calibration/report';
import { reliabilitySvg } from '../../calibration/svg';
import { loadConfig } from '../../config';
import type { Backend } from '../../engine/backend';
import { JudgeEngine } from '../../engine/engine';
import { UsageError, type Command } from '../command';

function number(
  value: string | undefined,
  flag: string,
  fallback: number,
  check: (n: number) => boolean,
  rule: string,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`${flag} must be ${rule}, got "${value}"`);
  return n;
}

export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: 'fit a temperature per question type on labelled requests; writes calibration.json and an SVG',
  usage:
    'calibrate --data labelled.jsonl [--holdout 0.2] [--seed 0] [--out calibration.json] [--diagram calibration.svg] ' +
    '[--config judge.json] [--concurrency 4]',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' },
        holdout: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        diagram: { type: 'string' },
        config: { type: 'string' },
        concurrency: { type: 'string' },
      },
      strict: true,
    });
    if (!values.data) throw new UsageError('--data <labelled.jsonl> is required');
    const holdout = number(values.holdout, '--holdout', 0.2, (n) => n >= 0 && n < 1, 'a share in [0, 1)');
    const seed = number(values.seed, '--seed', 0, (n) => Number.isInteger(n) && n >= 0, 'an integer ≥ 0');
    const concurrency = number(
      values.concurrency,
      '--concurrency',
      4,
      (n) => Number.isInteger(n) && n >= 1,
      'an integer ≥ 1',
    );
    const out = values.out ?? 'calibration.json';
    const diagram = values.diagram ?? (out.endsWith('.json') ? out.slice(0, -5) : out) + '.svg';

    const source = values.data === '-' ? 'stdin' : values.data;
    let text: string;
    try {
      text = readFileSync(values.data === '-' ? 0 : values.data, 'utf8');
    } catch (error) {
      throw new UsageError(`--data: cannot read ${source}: ${(error as Error).message}`);
    }
    const lines = parseLabelledJsonl(text, source);

    // The backend is only needed for lines without their answers. JUDGE_CALIBRATION="" keeps a calibration file
    // named in the config out: calibrate measures the model as it is, at temperature 1.
    let backend: Backend | undefined;
    let engine: JudgeEngine | undefined;
    if (lines.some((line) => !line.answers)) {
      const config = loadConfig({
        file: values.config,
        env: { JUDGE_API_KEYS: 'local-cli', ...process.env, JUDGE_CALIBRATION: '' },
      });
      if (Object.keys(config.temperatures).length > 0) {
        process.stderr.write(
          "systemone-judge calibrate: the config's temperatures are ignored; the fit starts from T = 1\n",
        );
      }
      backend = await createBackend(config.backend);
      engine = new JudgeEngine({ backend, aliases: config.aliases, limits: config.limits, temperatures: {} });
    }
    try {
      let reported = 0;
      const result = await calibrate({
        lines,
        holdout,
        seed,
        concurrency,
        source,
        judge: engine ? async (body) => (await engine.judge(body)).response : undefined,
        progress: (done, total) => {
          if (done === total || done - reported >= Math.max(1, Math.ceil(total / 10))) {
            reported = done;
            process.stderr.write(`systemone-judge calibrate: judged ${done}/${total} requests\n`);
          }
        },
      });
      writeFileSync(out, JSON.stringify(result.file, null, 2) + '\n');
      writeFileSync(diagram, reliabilitySvg(result.reliability, `Reliability: ${source}`));
      process.stdout.write(calibrationReport(result.file));
      process.stdout.write(
        `\nwrote ${out} and ${diagram}; serve with "calibration": "${out}" in the config (or JUDGE_CALIBRATION)\n`,
      );
      return 0;
    } finally {
      await backend?.close?.();
    }
  },
};
