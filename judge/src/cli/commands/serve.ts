// systemone-judge serve --port --host --config: run the HTTP server until SIGINT/SIGTERM, then drain and stop.
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config';
import type { ScoringMethod } from '../../engine/backend';
import { startJudgeServer } from '../../server';
import type { Command } from '../command';
import { startupNotes } from '../startup-notes';

const CALIBRATION = { true: 'calibrated', false: 'not calibrated', undefined: 'calibration not reported' };

const describeScoring = ({ method, calibrated }: ScoringMethod) =>
  method === 'unknown'
    ? 'a method not known yet (the probe failed; the first request probes again)'
    : `${method} (${CALIBRATION[`${calibrated}`]})`;

export const serve: Command = {
  name: 'serve',
  summary: 'run the System One HTTP server',
  usage:
    'serve [--config judge.json] [--host 127.0.0.1] [--port 8787]   (keys: JUDGE_API_KEYS or apiKeys in the config)',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } },
      strict: true,
    });
    const env = { ...process.env };
    if (values.host !== undefined) env.JUDGE_HOST = values.host;
    if (values.port !== undefined) env.JUDGE_PORT = values.port;
    const config = loadConfig({ file: values.config, env });
    const server = await startJudgeServer({ ...config, backend: config.backend });
    process.stderr.write(`systemone-judge: listening on ${server.url} (backend ${server.engine.backend.kind})\n`);
    for (const note of startupNotes(server, config)) process.stderr.write(`systemone-judge: ${note}\n`);
    // The scoring method is probed at start without holding it up (a probe that fails is retried on first use).
    const backend = server.engine.backend;
    for (const { id } of backend.models()) {
      void backend.scoringOf?.(id).then((scoring) => {
        if (scoring) process.stderr.write(`systemone-judge: model ${id} is scored by ${describeScoring(scoring)}\n`);
      });
    }
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        process.stderr.write(`systemone-judge: ${signal}, finishing in-flight requests\n`);
        resolve();
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    await server.close();
    return 0;
  },
};
