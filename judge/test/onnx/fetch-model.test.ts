// fetch-model against a loopback HTTP server that serves a generated model directory with Range support:
// full download with SHA256SUMS, resume after a broken transfer, a server that ignores Range, checksum mismatch,
// a missing required file, and a bearer token.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchModelError, fetchModel } from '../../src/model-tools/fetch-model';
import { generate, tempDir } from './fixtures';

interface Behaviour {
  /** Cut the connection after this many body bytes of model.onnx (once). */
  breakAfter?: number;
  ignoreRange?: boolean;
  corrupt?: boolean;
  token?: string;
  withSums?: boolean;
}

describe('fetch-model', () => {
  const tmp = tempDir('onnx-fetch-');
  let source: string;
  let server: Server;
  let baseUrl: string;
  let behaviour: Behaviour = {};
  let requests: { path: string; range?: string; auth?: string; bytesSent: number }[] = [];
  const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

  beforeAll(async () => {
    source = generate(tmp.path, 'source', { seed: 4, layout: 'shared-prefix', hidden: 64, maxPositions: 512 }).dir;
    server = createServer((req: IncomingMessage, res) => {
      const name = decodeURIComponent((req.url ?? '/').replace(/^\/models\/tiny\//, ''));
      const record = { path: name, range: req.headers.range, auth: req.headers.authorization, bytesSent: 0 };
      requests.push(record);
      if (behaviour.token && req.headers.authorization !== `Bearer ${behaviour.token}`) {
        res.writeHead(401).end();
        return;
      }
      let body: Buffer;
      if (name === 'SHA256SUMS') {
        if (!behaviour.withSums) return void res.writeHead(404).end();
        body = Buffer.from(
          readdirSync(source)
            .map((f) => `${sha(join(source, f))}  ${f}`)
            .join('\n') + '\n',
        );
      } else if (existsSync(join(source, name)) && !name.includes('..')) {
        body = readFileSync(join(source, name));
        if (behaviour.corrupt && name === 'model.onnx')
          body = Buffer.concat([body.subarray(0, -1), Buffer.from([body[body.length - 1] ^ 1])]);
      } else {
        return void res.writeHead(404).end();
      }
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      let start = 0;
      if (m && !behaviour.ignoreRange) {
        start = Number(m[1]);
        if (start >= body.length) return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        res.writeHead(206, {
          'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
          'content-length': body.length - start,
        });
      } else {
        res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
      }
      const rest = body.subarray(start);
      if (name === 'model.onnx' && behaviour.breakAfter !== undefined) {
        const cut = behaviour.breakAfter;
        behaviour.breakAfter = undefined;
        res.write(rest.subarray(0, cut), () => {
          record.bytesSent = cut;
          res.destroy();
        });
        return;
      }
      record.bytesSent = rest.length;
      res.end(rest);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/models/tiny`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    tmp.remove();
  });

  beforeEach(() => {
    behaviour = {};
    requests = [];
  });

  const same = (dir: string, file: string) =>
    expect(readFileSync(join(dir, file)).equals(readFileSync(join(source, file)))).toBe(true);

  it('downloads the directory and verifies every file against SHA256SUMS', async () => {
    behaviour = { withSums: true };
    const out = join(tmp.path, 'full');
    const files = await fetchModel({ baseUrl, outDir: out });
    expect(files.map((f) => f.file).sort()).toEqual([
      'config.json',
      'model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(files.every((f) => f.verified)).toBe(true);
    for (const f of files) same(out, f.file);
    expect(readdirSync(out).some((f) => f.endsWith('.part'))).toBe(false);
  });

  it('resumes a broken transfer with a Range request and fetches only the rest', async () => {
    const size = readFileSync(join(source, 'model.onnx')).length;
    const cut = Math.floor(size / 3);
    behaviour = { withSums: true, breakAfter: cut };
    const out = join(tmp.path, 'resume');
    await expect(fetchModel({ baseUrl, outDir: out })).rejects.toThrow(/model\.onnx: .*(broke off|got \d+ of)/);
    expect(existsSync(join(out, 'model.onnx'))).toBe(false);
    const partSize = readFileSync(join(out, 'model.onnx.part')).length;
    expect(partSize).toBeGreaterThan(0);
    expect(partSize).toBeLessThan(size);

    requests = [];
    const files = await fetchModel({ baseUrl, outDir: out });
    const resumed = requests.find((r) => r.path === 'model.onnx')!;
    expect(resumed.range).toBe(`bytes=${partSize}-`);
    expect(resumed.bytesSent).toBe(size - partSize);
    expect(files.find((f) => f.file === 'model.onnx')).toMatchObject({ resumedFrom: partSize, verified: true });
    same(out, 'model.onnx');
  });

  it('starts over when the server ignores Range', async () => {
    const out = join(tmp.path, 'norange');
    const whole = readFileSync(join(source, 'model.onnx'));
    await fetchModel({ baseUrl, outDir: out, files: ['config.json'], optionalFiles: [] });
    writeFileSync(join(out, 'model.onnx.part'), whole.subarray(0, 100));
    behaviour = { ignoreRange: true };
    await fetchModel({
      baseUrl,
      outDir: out,
      files: ['model.onnx'],
      optionalFiles: [],
      sha256: { 'model.onnx': sha(join(source, 'model.onnx')) },
    });
    same(out, 'model.onnx');
  });

  it('refuses a file whose checksum does not match and removes the partial download', async () => {
    behaviour = { withSums: true, corrupt: true };
    const out = join(tmp.path, 'corrupt');
    await expect(fetchModel({ baseUrl, outDir: out })).rejects.toThrow(
      /model\.onnx: checksum mismatch: expected sha256 [0-9a-f]{64}, got [0-9a-f]{64}/,
    );
    expect(existsSync(join(out, 'model.onnx'))).toBe(false);
    expect(existsSync(join(out, 'model.onnx.part'))).toBe(false);
  });

  it('names a missing required file, a bad URL and a bad checksum argument', async () => {
    const out = join(tmp.path, 'missing');
    await expect(fetchModel({ baseUrl, outDir: out, files: ['weights.onnx'], optionalFiles: [] })).rejects.toThrow(
      /weights\.onnx: .* answered HTTP 404/,
    );
    await expect(fetchModel({ baseUrl: 'not a url', outDir: out })).rejects.toThrow(FetchModelError);
    await expect(fetchModel({ baseUrl, outDir: out, sha256: { 'model.onnx': 'abc' } })).rejects.toThrow(
      /sha256 for model\.onnx/,
    );
  });

  it('sends the bearer token it is given', async () => {
    behaviour = { token: 'hf_secret_token' };
    const out = join(tmp.path, 'auth');
    await expect(fetchModel({ baseUrl, outDir: out, files: ['config.json'], optionalFiles: [] })).rejects.toThrow(
      /HTTP 401/,
    );
    await fetchModel({
      baseUrl,
      outDir: out,
      files: ['config.json'],
      optionalFiles: [],
      headers: { authorization: 'Bearer hf_secret_token' },
    });
    same(out, 'config.json');
  });
});
