// The browser service's entry (node assistant/dist/browser/main.js, built by `npm run build -w assistant`): bad
// settings stop it with a message naming the variable; it starts, answers with its key, never prints the key, and
// stops Chromium with itself on SIGTERM.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CHROMIUM, TEST_KEY } from './service-config';

const MAIN = path.resolve(__dirname, '../../dist/browser/main.js');

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The PIDs whose parent is `parent`, from /proc. */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // it ended meanwhile
      }
    });
}

describe('browser service main', () => {
  it('refuses to start without a key, naming the variable', async () => {
    const service = start({ ASSISTANT_BROWSER_PORT: '0' });
    expect(await service.exited).toBe(2);
    expect(service.output()).toMatch(/^browser service: ASSISTANT_BROWSER_KEY: is required/);
  });

  it('refuses to start when Chromium cannot be started, naming its path', async () => {
    const service = start({
      ASSISTANT_BROWSER_KEY: TEST_KEY,
      ASSISTANT_BROWSER_PORT: '0',
      ASSISTANT_CHROMIUM_PATH: '/nonexistent/chromium',
    });
    expect(await service.exited).toBe(1);
    expect(service.output()).toMatch(/Chromium could not be started from \/nonexistent\/chromium/);
  });

  it('serves with its key, never prints it, and takes Chromium along on SIGTERM', async () => {
    const service = start({
      ASSISTANT_BROWSER_KEY: TEST_KEY,
      ASSISTANT_BROWSER_PORT: '0',
      ASSISTANT_CHROMIUM_PATH: CHROMIUM,
    });
    let url: string | undefined;
    while (!url) {
      const exitedEarly = await Promise.race([
        service.exited.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 50)),
      ]);
      if (exitedEarly) throw new Error(`the service exited: ${service.output()}`);
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(service.output())?.[1];
    }
    const health = await fetch(`${url}/health`, { headers: { 'x-api-key': TEST_KEY } });
    const body = (await health.json()) as { chromium: string | null };
    expect(health.status).toBe(200);
    expect(body.chromium).toMatch(/^\d+\./);
    const chromiumPids = childrenOf(service.child.pid!);
    expect(chromiumPids.length).toBeGreaterThan(0);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(chromiumPids.filter(isAlive)).toEqual([]);
    expect(service.output()).not.toContain(TEST_KEY);
  });
});
