// The operator's command line for experts: list the installed ones and the catalogue, install a catalogue expert
// (creates and publishes its workflow through n8n's public API, registers it), remove one. Running it is the
// operator's approval, so it asks nothing.
//   tsx scripts/experts.ts list|install <id>|remove <id> [--url postgres://…] [--n8n-url http://127.0.0.1:5678]
//                          [--api-key-file FILE]
// The database as for scripts/migrate.ts. The n8n API key: N8N_API_KEY, else --api-key-file, else the local runtime's
// key (.runtime/local/n8n-api-key, written by ./scripts/run.sh). The n8n URL: --n8n-url, N8N_URL, else the local one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import {
  installExpertByOperator,
  listExperts,
  publicWorkflowApi,
  removeExpert,
  runMigrations,
  type ExpertListing,
} from 'assistant-core';
import { targetFromArgs } from './migrate';

const LOCAL_API_KEY_FILE = path.join(__dirname, '..', '.runtime', 'local', 'n8n-api-key');
const USAGE = 'usage: experts.ts list | install <id> | remove <id> [--url postgres://…] [--n8n-url URL]';

export interface ExpertsArgs {
  command: 'list' | 'install' | 'remove';
  expertId?: string;
  n8nUrl: string;
  apiKeyFile?: string;
}

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at === -1) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name}: needs a value`);
  return value;
}

export function expertsArgs(argv: string[], env: NodeJS.ProcessEnv): ExpertsArgs {
  const positional = argv.filter((arg, index) => !arg.startsWith('--') && !argv[index - 1]?.startsWith('--'));
  const [command, expertId] = positional;
  if (command !== 'list' && command !== 'install' && command !== 'remove') {
    throw new Error(command ? `unknown command "${command}". ${USAGE}` : USAGE);
  }
  if (command !== 'list' && !expertId) throw new Error(`${command}: give the expert id, e.g. travel-planner`);
  return {
    command,
    expertId,
    n8nUrl: flag(argv, '--n8n-url') ?? env.N8N_URL ?? `http://127.0.0.1:${env.N8N_PORT ?? '5678'}`,
    apiKeyFile: flag(argv, '--api-key-file'),
  };
}

/** The n8n API key: N8N_API_KEY, the file given, or the local runtime's. */
export function readApiKey(args: ExpertsArgs, env: NodeJS.ProcessEnv): string {
  if (env.N8N_API_KEY) return env.N8N_API_KEY.trim();
  const file = args.apiKeyFile ?? LOCAL_API_KEY_FILE;
  if (!existsSync(file)) {
    throw new Error(
      `no n8n API key: set N8N_API_KEY, give --api-key-file, or start the local stack (./scripts/run.sh) once (${file})`,
    );
  }
  return readFileSync(file, 'utf8').trim();
}

export function describeListing(listing: ExpertListing): string {
  const installed = listing.installed.map(
    (expert) => `  ${expert.id.padEnd(22)} ${expert.source.padEnd(9)} ${expert.model ?? '(chat model setting)'}`,
  );
  const available = listing.available.map((expert) => `  ${expert.id.padEnd(22)} ${expert.description}`);
  return [
    'installed:',
    ...installed,
    'in the catalogue:',
    ...(available.length ? available : ['  (all installed)']),
  ].join('\n');
}

if (require.main === module) {
  (async () => {
    const argv = process.argv.slice(2);
    const args = expertsArgs(argv, process.env);
    const target = targetFromArgs(argv, process.env);
    const pool = new Pool(typeof target === 'string' ? { connectionString: target, max: 2 } : { ...target, max: 2 });
    pool.on('error', () => undefined);
    try {
      await runMigrations(pool);
      if (args.command === 'list') {
        console.log(describeListing(await listExperts(pool)));
        return;
      }
      const api = publicWorkflowApi(args.n8nUrl, readApiKey(args, process.env));
      const result =
        args.command === 'install'
          ? await installExpertByOperator(pool, api, args.expertId)
          : await removeExpert(pool, api, { expertId: args.expertId });
      console.log(result.result);
    } finally {
      await pool.end();
    }
  })().catch((error: Error) => {
    console.error(`experts: ${error.message}`);
    process.exit(1);
  });
}
