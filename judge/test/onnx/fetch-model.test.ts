// fetch-model against a loopback HTTP server that serves a generated model directory with Range support:
// full download with SHA256SUMS, resume after a broken transfer, a server that ignores Range, checksum mismatch,
// a missing required file, and a bearer token. Then a Hugging Face repo as onnx-community lays it out.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { readModelFiles } from '../../src/backends/onnx/model-files';
import { main } from '../../src/cli/main';
import { FetchModelError, fetchHubModel, fetchModel } from '../../src/model-tools/fetch-model';
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

// A loopback fake of the Hugging Face hub serving an onnx-community style repo: tokenizer and config at the root,
// graphs under onnx/ (model.onnx, model_quantized.onnx, model_fp16.onnx + model_fp16.onnx_data); the tree API paged
// with Link headers; LFS files answered by a 302 to a "CDN" path (as huggingface.co does), which honours Range.
describe('fetch-model from a Hugging Face repo layout', () => {
  const tmp = tempDir('onnx-fetch-hub-');
  let server: Server;
  let endpoint: string;
  const repo = 'onnx-community/Tiny-LM-ONNX';
  let blobs: Map<string, Buffer>;
  const lfsPaths = new Set<string>();
  let hub: { token?: string; corrupt?: string; breakAfter?: { path: string; bytes: number }; pageSize: number };
  let requests: { url: string; range?: string; auth?: string }[] = [];
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const gitOid = (bytes: Buffer) =>
    createHash('sha1')
      .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
      .digest('hex');

  function tree() {
    return [...blobs.keys()].flatMap((path) =>
      (path === 'onnx/model.onnx' ? [{ type: 'directory', path: 'onnx', oid: 'f'.repeat(40), size: 0 }] : []).concat([
        {
          type: 'file',
          path,
          oid: gitOid(blobs.get(path)!),
          size: blobs.get(path)!.length,
          ...(lfsPaths.has(path)
            ? { lfs: { oid: sha(blobs.get(path)!), size: blobs.get(path)!.length, pointerSize: 134 } }
            : {}),
        },
      ] as never[]),
    );
  }

  function serveBytes(req: IncomingMessage, res: import('node:http').ServerResponse, path: string) {
    let body = blobs.get(path)!;
    if (hub.corrupt === path) body = Buffer.concat([body.subarray(0, -1), Buffer.from([body[body.length - 1] ^ 1])]);
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    if (m) {
      if (start >= body.length) return void res.writeHead(416).end();
      res.writeHead(206, {
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
        'content-length': body.length - start,
      });
    } else res.writeHead(200, { 'content-length': body.length });
    const rest = body.subarray(start);
    if (hub.breakAfter?.path === path) {
      const cut = hub.breakAfter.bytes;
      hub.breakAfter = undefined;
      res.write(rest.subarray(0, cut), () => res.destroy());
      return;
    }
    res.end(rest);
  }

  beforeAll(async () => {
    const source = generate(tmp.path, 'source', { seed: 5, layout: 'plain-past', hidden: 32 }).dir;
    const quantized = generate(tmp.path, 'other', { seed: 6, layout: 'plain-past', hidden: 32 }).dir;
    blobs = new Map([
      ['.gitattributes', Buffer.from('*.onnx filter=lfs diff=lfs merge=lfs -text\n')],
      ['README.md', Buffer.from('# Tiny LM (ONNX)\n')],
      ['config.json', readFileSync(join(source, 'config.json'))],
      ['tokenizer.json', readFileSync(join(source, 'tokenizer.json'))],
      ['tokenizer_config.json', readFileSync(join(source, 'tokenizer_config.json'))],
      ['onnx/model.onnx', readFileSync(join(source, 'model.onnx'))],
      ['onnx/model_quantized.onnx', readFileSync(join(quantized, 'model.onnx'))],
      ['onnx/model_fp16.onnx', Buffer.from('a graph whose weights are in model_fp16.onnx_data')],
      ['onnx/model_fp16.onnx_data', Buffer.alloc(40_000, 7)],
    ]);
    for (const p of blobs.keys()) if (p.startsWith('onnx/')) lfsPaths.add(p);
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://hub');
      requests.push({ url: url.pathname + url.search, range: req.headers.range, auth: req.headers.authorization });
      if (hub.token && req.headers.authorization !== `Bearer ${hub.token}` && !url.pathname.startsWith('/cdn/'))
        return void res.writeHead(401).end();
      const treePrefix = `/api/models/${repo}/tree/main`;
      if (url.pathname === treePrefix && url.searchParams.get('recursive') === 'true') {
        const all = tree();
        const from = Number(url.searchParams.get('cursor') ?? 0);
        const page = all.slice(from, from + hub.pageSize);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (from + hub.pageSize < all.length)
          headers.link = `<${endpoint}${treePrefix}?recursive=true&cursor=${from + hub.pageSize}>; rel="next"`;
        return void res.writeHead(200, headers).end(JSON.stringify(page));
      }
      const resolvePrefix = `/${repo}/resolve/main/`;
      if (url.pathname.startsWith(resolvePrefix)) {
        const path = decodeURIComponent(url.pathname.slice(resolvePrefix.length));
        if (!blobs.has(path)) return void res.writeHead(404).end();
        if (lfsPaths.has(path))
          return void res
            .writeHead(302, { location: `/cdn/${sha(blobs.get(path)!)}?name=${encodeURIComponent(path)}` })
            .end();
        return serveBytes(req, res, path);
      }
      if (url.pathname.startsWith('/cdn/')) return serveBytes(req, res, url.searchParams.get('name')!);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    tmp.remove();
  });

  beforeEach(() => {
    hub = { pageSize: 4 };
    requests = [];
  });

  const same = (out: string, file: string, remote: string) =>
    expect(readFileSync(join(out, file)).equals(blobs.get(remote)!)).toBe(true);

  it('fetches onnx/model.onnx as model.onnx with the root tokenizer and config, verified against the tree', async () => {
    const out = join(tmp.path, 'default');
    const { plan, files } = await fetchHubModel({ repo, endpoint, outDir: out });
    expect(plan.modelFile).toBe('onnx/model.onnx');
    expect(files.map((f) => [f.file, f.remote])).toEqual([
      ['model.onnx', 'onnx/model.onnx'],
      ['tokenizer.json', 'tokenizer.json'],
      ['config.json', 'config.json'],
      ['tokenizer_config.json', 'tokenizer_config.json'],
    ]);
    expect(files.every((f) => f.verified)).toBe(true);
    same(out, 'model.onnx', 'onnx/model.onnx');
    same(out, 'tokenizer.json', 'tokenizer.json');
    expect(readdirSync(out).sort()).toEqual(['config.json', 'model.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    // The tree came in pages (Link rel="next"), and the LFS graph through the CDN redirect.
    expect(requests.filter((r) => r.url.startsWith('/api/models/')).length).toBeGreaterThan(2);
    expect(requests.some((r) => r.url.startsWith('/cdn/'))).toBe(true);
    // What was fetched is a model directory the backend reads.
    expect(readModelFiles(out).config).toBeTypeOf('object');
  });

  it('chooses the graph by --model-file and brings its external data under its own name', async () => {
    const q = join(tmp.path, 'quantized');
    const { files } = await fetchHubModel({ repo, endpoint, outDir: q, modelFile: 'model_quantized.onnx' });
    expect(files[0]).toMatchObject({ file: 'model.onnx', remote: 'onnx/model_quantized.onnx', verified: true });
    same(q, 'model.onnx', 'onnx/model_quantized.onnx');

    const fp16 = join(tmp.path, 'fp16');
    const fetched = await fetchHubModel({ repo, endpoint, outDir: fp16, modelFile: 'onnx/model_fp16.onnx' });
    expect(fetched.files.slice(0, 2).map((f) => [f.file, f.remote])).toEqual([
      ['model.onnx', 'onnx/model_fp16.onnx'],
      ['model_fp16.onnx_data', 'onnx/model_fp16.onnx_data'],
    ]);
    same(fp16, 'model_fp16.onnx_data', 'onnx/model_fp16.onnx_data');
    expect(existsSync(join(fp16, 'model.onnx_data'))).toBe(false);
  });

  it('resumes a broken LFS transfer through the redirect with a Range request', async () => {
    const out = join(tmp.path, 'resume');
    const size = blobs.get('onnx/model.onnx')!.length;
    hub.breakAfter = { path: 'onnx/model.onnx', bytes: Math.floor(size / 2) };
    await expect(fetchHubModel({ repo, endpoint, outDir: out })).rejects.toThrow(
      /model\.onnx: .*(broke off|got \d+ of)/,
    );
    const partSize = readFileSync(join(out, 'model.onnx.part')).length;
    expect(partSize).toBeGreaterThan(0);
    requests = [];
    const { files } = await fetchHubModel({ repo, endpoint, outDir: out });
    expect(requests.find((r) => r.url.startsWith('/cdn/'))?.range).toBe(`bytes=${partSize}-`);
    expect(files[0]).toMatchObject({ resumedFrom: partSize, verified: true });
    same(out, 'model.onnx', 'onnx/model.onnx');
  });

  it('refuses an LFS file whose SHA-256, or a small file whose git blob id, differs from the tree', async () => {
    hub.corrupt = 'onnx/model.onnx';
    const out = join(tmp.path, 'corrupt');
    await expect(fetchHubModel({ repo, endpoint, outDir: out })).rejects.toThrow(
      /model\.onnx: checksum mismatch: expected sha256 [0-9a-f]{64}/,
    );
    expect(existsSync(join(out, 'model.onnx.part'))).toBe(false);
    hub.corrupt = 'tokenizer.json';
    await expect(fetchHubModel({ repo, endpoint, outDir: out })).rejects.toThrow(
      /tokenizer\.json: checksum mismatch: expected git blob [0-9a-f]{40}/,
    );
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(false);
  });

  it('names what is missing: an unknown graph, a root file, the repo, and a token', async () => {
    const out = join(tmp.path, 'missing');
    await expect(fetchHubModel({ repo, endpoint, outDir: out, modelFile: 'model_q4.onnx' })).rejects.toThrow(
      /model-file: "model_q4\.onnx" is not in the repo \(its \.onnx files: onnx\/model\.onnx, onnx\/model_fp16\.onnx, onnx\/model_quantized\.onnx\)/,
    );
    await expect(fetchHubModel({ repo, endpoint, outDir: out, modelFile: 'README.md' })).rejects.toThrow(
      /model-file: "README\.md" is not an \.onnx file/,
    );
    await expect(fetchHubModel({ repo: 'onnx-community/nope', endpoint, outDir: out })).rejects.toThrow(
      /repo: listing onnx-community\/nope at main answered HTTP 404 \(no such repo/,
    );
    await expect(fetchHubModel({ repo: 'no-slash', endpoint, outDir: out })).rejects.toThrow(
      /repo: "no-slash" is not "owner\/name"/,
    );
    const tokenizer = blobs.get('tokenizer.json')!;
    blobs.delete('tokenizer.json');
    try {
      await expect(fetchHubModel({ repo, endpoint, outDir: out })).rejects.toThrow(
        /tokenizer\.json: the repo has no tokenizer\.json at its root \(root files: .*config\.json/,
      );
    } finally {
      blobs.set('tokenizer.json', tokenizer);
    }
    hub.token = 'hf_secret';
    await expect(fetchHubModel({ repo, endpoint, outDir: out })).rejects.toThrow(
      /HTTP 401 \(a private or gated repo needs a token/,
    );
    await fetchHubModel({ repo, endpoint, outDir: out, headers: { authorization: 'Bearer hf_secret' } });
    expect(requests.filter((r) => !r.url.startsWith('/cdn/')).at(-1)?.auth).toBe('Bearer hf_secret');
    same(out, 'model.onnx', 'onnx/model.onnx');
  });

  it('the CLI fetches by --repo and says which graph it took', async () => {
    const out = join(tmp.path, 'cli');
    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(
        await main([
          'fetch-model',
          '--repo',
          repo,
          '--endpoint',
          endpoint,
          '--model-file',
          'model_quantized.onnx',
          '--out',
          out,
        ]),
      ).toBe(0);
      expect(stdout).toMatch(/graph: onnx\/model_quantized\.onnx \(saved as model\.onnx\)/);
      expect(await main(['fetch-model', '--repo', repo, '--url', endpoint, '--out', out])).toBe(2);
    } finally {
      vi.restoreAllMocks();
    }
    same(out, 'model.onnx', 'onnx/model_quantized.onnx');
  });
});
