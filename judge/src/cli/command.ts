// The shape of one CLI command; each lives in ./commands/<name>.ts and is listed once in ./commands/index.ts.
export interface Command {
  name: string;
  /** One line for `systemone-judge help`. */
  summary: string;
  /** Flags, shown by `systemone-judge <name> --help`. */
  usage: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}
