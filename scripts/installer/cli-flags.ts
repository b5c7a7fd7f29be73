// The installer commands' options: `--name value` pairs read from argv.

/** The value after `name` in `argv`, undefined when the option is absent; an error naming it when its value is. */
export function flagValue(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  if (at === -1) return undefined;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name}: needs a value`);
  return value;
}
