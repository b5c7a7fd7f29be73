#!/usr/bin/env node
// systemone-judge <command> [flags]. Errors print one clear line (and the usage for flag mistakes), never a stack.
import { ApiError } from '../protocol/errors';
import { ConfigError } from '../config';
import { BackendError } from '../engine/backend';
import { UsageError } from './command';
import { COMMANDS } from './commands';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'usage: systemone-judge <command> [flags]',
    '',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(help() + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`systemone-judge: unknown command "${name}"\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`usage: systemone-judge ${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(
        `systemone-judge ${name}: ${(error as Error).message}\nusage: systemone-judge ${command.usage}\n`,
      );
      return 2;
    }
    if (error instanceof ApiError) {
      process.stderr.write(`systemone-judge ${name}: ${error.status} ${JSON.stringify(error.body())}\n`);
      return 1;
    }
    if (error instanceof ConfigError || error instanceof BackendError) {
      process.stderr.write(`systemone-judge ${name}: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`systemone-judge ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
