// Queue mode's Redis as the local stack's supervisor sees it (scripts/runtime/stack-queue.ts): a real redis-server
// killed is seen ended, and its restart serves again on the same port, which n8n's settings name.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startQueueRedis } from '../../../scripts/runtime/stack-queue';
import type { Cleanup } from '../../../scripts/runtime/stack-types';

const dir = mkdtempSync(path.join(tmpdir(), 'queue-redis-'));
const cleanups: Cleanup[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString('utf8').trim());
    });
    socket.once('error', reject);
  });
}

describe('queue mode Redis under supervision', () => {
  it('reports its end when killed, and a restart serves on the same port', async () => {
    const env: Record<string, string> = {};
    const processEnv: NodeJS.ProcessEnv = {};
    const redis = await startQueueRedis(dir, env, processEnv, cleanups, () => undefined);
    expect(env.QUEUE_BULL_REDIS_PORT).toBe(String(redis.port));
    expect(await ping(redis.port)).toBe('+PONG');
    const firstPid = redis.pid();
    process.kill(firstPid, 'SIGKILL');
    expect(await redis.whenExited()).toEqual({ code: null, signal: 'SIGKILL' });
    await expect(ping(redis.port)).rejects.toThrow(/ECONNREFUSED/);
    await redis.restart();
    expect(redis.pid()).not.toBe(firstPid);
    expect(await ping(redis.port)).toBe('+PONG');
  });
});
