// The caps' clock in test mode: ahead by the seconds its file holds, and refused outside test mode.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGatewaySettings } from '../../src/gateway/config';
import { fileOffsetClock } from '../../src/gateway/test-clock';

const base = {
  ASSISTANT_GATEWAY_KEY: 'k'.repeat(24),
  ASSISTANT_GATEWAY_DATABASE_URL: 'postgres://127.0.0.1/n8n',
};

describe('the test clock', () => {
  it('runs ahead by the seconds in its file, read at each call; no file is now', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'clock-')), 'offset');
    const clock = fileOffsetClock(file);
    expect(Math.abs(clock().getTime() - Date.now())).toBeLessThan(1000);
    writeFileSync(file, '86400\n');
    expect(clock().getTime() - Date.now()).toBeGreaterThan(86_399_000);
    writeFileSync(file, 'tomorrow');
    expect(() => clock()).toThrow(`the test clock file ${file} holds "tomorrow", not a number of seconds`);
  });

  it('is honoured only in test mode', () => {
    const env = { ...base, ASSISTANT_GATEWAY_TEST_CLOCK_FILE: '/tmp/offset' };
    expect(() => readGatewaySettings({ ...env, NODE_ENV: 'production' })).toThrow(
      'ASSISTANT_GATEWAY_TEST_CLOCK_FILE: is honoured only in test mode (NODE_ENV=test)',
    );
    expect(readGatewaySettings({ ...env, NODE_ENV: 'test' }).testClockFile).toBe('/tmp/offset');
    expect(readGatewaySettings(base).testClockFile).toBeNull();
  });
});
