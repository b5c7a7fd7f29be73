// systemone-judge ask: answer one request from the command line with the configured backend (no server).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createBackend } from '../../backends';
import { loadConfig } from '../../config';
import { DEFAULT_ALIAS, JudgeEngine } from '../../engine/engine';
import { UsageError, type Command } from '../command';

export const ask: Command = {
  name: 'ask',
  summary: 'answer one System One request and print the JSON response',
  usage:
    'ask [--config judge.json] (--request body.json | --request - | --state <text> ' +
    `--question <name>=<question JSON> …) [--model ${DEFAULT_ALIAS}]`,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        request: { type: 'string' },
        state: { type: 'string' },
        question: { type: 'string', multiple: true },
        model: { type: 'string' },
      },
      strict: true,
    });
    let body: Record<string, unknown>;
    if (values.request !== undefined) {
      const text = readFileSync(values.request === '-' ? 0 : values.request, 'utf8');
      try {
        body = JSON.parse(text);
      } catch (error) {
        throw new UsageError(`--request is not valid JSON: ${(error as Error).message}`);
      }
    } else {
      if (values.state === undefined || !values.question?.length)
        throw new UsageError('give --request, or --state and at least one --question');
      const questions: Record<string, unknown> = {};
      for (const item of values.question) {
        const eq = item.indexOf('=');
        if (eq <= 0) throw new UsageError(`--question "${item}" is not <name>=<question JSON>`);
        try {
          questions[item.slice(0, eq)] = JSON.parse(item.slice(eq + 1));
        } catch (error) {
          throw new UsageError(`--question ${item.slice(0, eq)}: not valid JSON: ${(error as Error).message}`);
        }
      }
      body = { state: values.state, questions };
    }
    if (values.model !== undefined) body.model = values.model;
    body.model ??= DEFAULT_ALIAS;

    // ask runs locally; keys only guard the server, so none are needed here.
    const config = loadConfig({ file: values.config, env: { JUDGE_API_KEYS: 'local-cli', ...process.env } });
    const backend = await createBackend(config.backend);
    try {
      const engine = new JudgeEngine({
        backend,
        aliases: config.aliases,
        limits: config.limits,
        temperatures: config.temperatures,
      });
      const { response } = await engine.judge(body);
      process.stdout.write(JSON.stringify(response, null, 2) + '\n');
      return 0;
    } finally {
      await backend.close?.();
    }
  },
};
