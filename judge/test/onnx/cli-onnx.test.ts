// The CLI with the local backend: convert a plain-past export, then ask through a config that selects kind "onnx".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main';
import type { NoulAnswer, SystemOneResponse } from '../../src/protocol/types';
import { captureOutput, generate, tempDir } from './fixtures';

describe('CLI with the local ONNX backend', () => {
  const tmp = tempDir('onnx-cli-');
  afterEach(() => vi.restoreAllMocks());
  afterAll(() => tmp.remove());

  it('convert rewrites a plain-past export, and ask answers with it', async () => {
    const plain = generate(tmp.path, 'plain', { seed: 9, layout: 'plain-past' }).dir;
    const converted = join(tmp.path, 'converted');
    let io = captureOutput();
    expect(await main(['convert', '--in', plain, '--out', converted])).toBe(0);
    expect(io.out()).toMatch(/converted 2 layers to the shared-prefix layout/);
    vi.restoreAllMocks();

    const config = join(tmp.path, 'judge.json');
    writeFileSync(
      config,
      JSON.stringify({
        backend: { kind: 'onnx', models: [{ id: 'judge-onnx-cli-2026-11-01', dir: converted }], intraOpNumThreads: 1 },
      }),
    );
    io = captureOutput();
    const code = await main([
      'ask',
      '--config',
      config,
      '--state',
      'The parcel arrived late.',
      '--question',
      'late={"type":"noul","instructions":"Was it late?"}',
    ]);
    vi.restoreAllMocks();
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const response = JSON.parse(io.out()) as SystemOneResponse;
    expect(response.model).toBe('judge-onnx-cli-2026-11-01');
    const noul = (response.answers.late as NoulAnswer).noul;
    expect(noul).toBeGreaterThan(0);
    expect(noul).toBeLessThan(1);
    expect(response.usage.input_tokens).toBeGreaterThan(10);
  });

  it('convert refuses a graph without past, and reports missing flags', async () => {
    const none = generate(tmp.path, 'none', { seed: 9, layout: 'no-past' }).dir;
    let io = captureOutput();
    expect(await main(['convert', '--in', none, '--out', join(tmp.path, 'x')])).toBe(1);
    expect(io.err()).toMatch(/no past_key_values/);
    expect(io.err()).toMatch(/served as it is, it gets the no-past path: the graph takes no past_key_values/);
    vi.restoreAllMocks();
    io = captureOutput();
    expect(await main(['convert', '--in', none])).toBe(2);
    expect(io.err()).toMatch(/--out is required/);
    vi.restoreAllMocks();
    io = captureOutput();
    expect(await main(['fetch-model', '--out', tmp.path])).toBe(2);
    expect(io.err()).toMatch(/--url is required/);
  });
});
