// setup.sh's questions: asks them on a terminal (or reads them with --non-interactive from --answers FILE and the
// environment), checks every answer, and writes the settings into local.env (mode 600), keeping the others. Prints
// which settings changed: the next start rewrites only the credentials whose settings changed.
//   tsx scripts/installer/main.ts [--non-interactive] [--answers FILE] [--env FILE]
//                                 [--telegram-api URL] [--provider-base-url URL] [--containers]
// --containers (the Docker path): a model server on this host's loopback is written as the containers reach it.
import path from 'node:path';
import readline from 'node:readline';
import { installerChecks } from './checks';
import { flagValue } from './cli-flags';
import { hostFromContainers } from './compose-env';
import { readEnvFile, writeEnvFile } from './env-file';
import { changedSettings, runQuestions, type Prompt } from './flow';
import { MODEL_BASE_URLS } from './model-questions';
import { providerSettings, QUESTIONS } from './questions';

const DEFAULT_ENV_FILE = path.join(
  process.env.LOCAL_STATE_DIR ?? path.join(__dirname, '..', '..', '.runtime', 'local'),
  'local.env',
);

export interface InstallerArgs {
  interactive: boolean;
  answersFile?: string;
  envFile: string;
  telegramApiUrl?: string;
  providerBaseUrl?: string;
  containers: boolean;
}

export function installerArgs(argv: string[]): InstallerArgs {
  const value = (flag: string): string | undefined => flagValue(argv, flag);
  const known = ['--non-interactive', '--answers', '--env', '--telegram-api', '--provider-base-url', '--containers'];
  const unknown = argv.find(
    (arg, index) => arg.startsWith('--') && !known.includes(arg) && !argv[index - 1]?.startsWith('--'),
  );
  if (unknown) throw new Error(`unknown option ${unknown}`);
  return {
    interactive: !argv.includes('--non-interactive'),
    answersFile: value('--answers'),
    envFile: value('--env') ?? DEFAULT_ENV_FILE,
    telegramApiUrl: value('--telegram-api'),
    providerBaseUrl: value('--provider-base-url'),
    containers: argv.includes('--containers'),
  };
}

/** A prompt on this terminal; a secret's typing is not echoed. */
function terminalPrompt(): Prompt & { close(): void } {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  let muted = false;
  const internals = rl as unknown as { _writeToOutput(text: string): void };
  const write = internals._writeToOutput.bind(rl);
  internals._writeToOutput = (text: string) => {
    if (!muted) write(text);
    else if (text.includes('\n')) write('\n');
  };
  const prompt = ((text: string, options: { secret: boolean }) =>
    new Promise<string>((resolve) => {
      rl.question(text, (answer) => {
        muted = false;
        resolve(answer);
      });
      // The question's text is written by now; what is typed next is not shown for a secret.
      muted = options.secret;
    })) as Prompt & { close(): void };
  prompt.close = () => rl.close();
  return prompt;
}

if (require.main === module) {
  (async () => {
    const args = installerArgs(process.argv.slice(2));
    const current = readEnvFile(args.envFile);
    const given: Record<string, string> = {};
    if (args.answersFile) Object.assign(given, readEnvFile(args.answersFile));
    if (!args.interactive) {
      for (const question of QUESTIONS) {
        const fromEnv = process.env[question.key];
        if (fromEnv !== undefined && fromEnv !== '') given[question.key] = fromEnv;
      }
    }
    if (args.interactive && !process.stdin.isTTY) {
      throw new Error(
        'no terminal to ask on: give --non-interactive with --answers FILE (or the settings in the environment)',
      );
    }
    const prompt = args.interactive ? terminalPrompt() : undefined;
    try {
      const telegramApiUrl =
        args.telegramApiUrl ?? (given.ASSISTANT_TELEGRAM_API_URL || current.ASSISTANT_TELEGRAM_API_URL);
      const result = await runQuestions({
        questions: QUESTIONS,
        checks: installerChecks({ telegramApiUrl: telegramApiUrl || undefined, providerBaseUrl: args.providerBaseUrl }),
        current,
        given,
        prompt,
        say: (line) => console.log(line),
      });
      if (result.problems.length > 0) {
        console.error(
          `setup: the answers need fixing:\n${result.problems.map((problem) => `  ${problem}`).join('\n')}`,
        );
        process.exit(2);
      }
      const next = { ...result.answers, ...providerSettings(result.answers) };
      for (const name of MODEL_BASE_URLS) {
        if (!next[name]) continue;
        if (args.providerBaseUrl) next[name] = args.providerBaseUrl;
        if (args.containers) next[name] = hostFromContainers(next[name]);
      }
      const changed = changedSettings(current, next);
      writeEnvFile(args.envFile, next);
      const secrets = new Set(QUESTIONS.filter((question) => question.secret).map((question) => question.key));
      for (const name of ['JUDGE_OPENAI_API_KEY', 'ASSISTANT_EMBEDDINGS_API_KEY', 'ASSISTANT_TRANSCRIPTION_API_KEY'])
        secrets.add(name);
      console.log(
        changed.length === 0
          ? `settings unchanged (${args.envFile})`
          : `settings written to ${args.envFile} (mode 600); changed: ${changed
              .map((key) => (secrets.has(key) ? `${key} (secret)` : `${key}=${next[key]}`))
              .join(', ')}`,
      );
    } finally {
      prompt?.close();
    }
  })().catch((error: Error) => {
    console.error(`setup: ${error.message}`);
    process.exit(1);
  });
}
