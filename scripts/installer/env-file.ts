// local.env as the installer reads and writes it: NAME=value lines, comments kept at the top, mode 600.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function parseEnv(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(trimmed);
    if (!match) throw new Error(`${file}:${index + 1}: expected NAME=value, got "${trimmed}"`);
    values[match[1]] = match[2];
  });
  return values;
}

export function readEnvFile(file: string): Record<string, string> {
  return existsSync(file) ? parseEnv(readFileSync(file, 'utf8'), file) : {};
}

/** Writes `values` over the file's (other settings kept), mode 600, in a folder only its owner can list. */
export function writeEnvFile(file: string, values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    if (/[\r\n]/.test(value)) throw new Error(`${key}: a setting is one line`);
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o711 });
  const merged = { ...readEnvFile(file), ...values };
  const lines = [
    '# Settings of this install (setup.sh, scripts/run.sh). Secrets: keep this file private (mode 600).',
    ...Object.entries(merged).map(([key, value]) => `${key}=${value}`),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}
