// systemone-judge serve --port --host --config: run the HTTP server until SIGINT/SIGTERM, then drain and stop.
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config';
import { startJudgeServer } from '../../server';
import type { Command } from '../command';
import { startupNotes } from '../startup-notes';

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
