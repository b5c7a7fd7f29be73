// doctor's command line: flags, settings, the checks, the report and the exit status (0: the chat model works;
// 1: it fails; 2: a bad flag or setting).
import { jsonReport, plainReport, withoutSecrets } from './report';
import { runDoctor } from './run';
import { DoctorSettingError, readDoctorSettings, secretsOf } from './settings';

export const USAGE = `usage: npx tsx scripts/doctor.ts [--quick] [--json]
  Tries the configured models for real through the model gateway and says what works.
  --quick  skip the speed probe
  --json   print the verdict as JSON`;

export interface DoctorFlags {
  quick: boolean;
  json: boolean;
  help: boolean;
}

export class UsageError extends Error {}

export function parseFlags(argv: string[]): DoctorFlags {
  const flags = { quick: false, json: false, help: false };
  for (const arg of argv) {
    if (arg === '--quick') flags.quick = true;
    else if (arg === '--json') flags.json = true;
    else if (arg === '-h' || arg === '--help') flags.help = true;
    else throw new UsageError(`doctor: unknown option "${arg}"`);
  }
  return flags;
}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function doctorCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let flags: DoctorFlags;
  try {
    flags = parseFlags(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n${USAGE}`);
    return 2;
  }
  if (flags.help) return (io.out(USAGE), 0);
  let settings;
  try {
    settings = readDoctorSettings(env);
  } catch (error) {
    if (!(error instanceof DoctorSettingError)) throw error;
    io.err(`doctor: ${error.message}`);
    return 2;
  }
  const verdict = await runDoctor(settings, { quick: flags.quick });
  const report = flags.json ? jsonReport(verdict) : plainReport(verdict);
  io.out(withoutSecrets(report, secretsOf(settings)));
  return verdict.chatModelFails ? 1 : 0;
}
