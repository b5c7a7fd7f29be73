// Downloads a model directory by URL: each file resumes from its ".part" with an HTTP Range request and is
// checked against a SHA-256 (given, or from a SHA256SUMS file next to the model) before it takes its final name.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

export const REQUIRED_FILES = ['model.onnx', 'tokenizer.json', 'config.json'];
export const OPTIONAL_FILES = [
  'tokenizer_config.json',
  'model.onnx_data',
  'special_tokens_map.json',
  'generation_config.json',
  'chat_template.jinja',
];

export interface FetchModelOptions {
  /** The directory URL; files are fetched from `<baseUrl>/<file>`. */
  baseUrl: string;
  outDir: string;
  /** Files that must exist (default REQUIRED_FILES) and files fetched when present (default OPTIONAL_FILES). */
  files?: string[];
  optionalFiles?: string[];
  /** file → expected SHA-256 (hex). Merged over the SHA256SUMS file when the server has one. */
  sha256?: Record<string, string>;
  /** Sent with every request, e.g. {authorization: "Bearer …"}; never logged. */
  headers?: Record<string, string>;
  log?: (line: string) => void;
}

export interface FetchedFile {
  file: string;
  bytes: number;
  sha256: string;
  /** Bytes that were already on disk from an earlier, interrupted run. */
  resumedFrom: number;
  verified: boolean;
}

export class FetchModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchModelError';
  }
}

function fileUrl(baseUrl: string, file: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${file.split('/').map(encodeURIComponent).join('/')}`;
}

/** Parses `sha256sum` output: "<64 hex>  <name>" per line. */
export function parseSha256Sums(text: string): Record<string, string> {
  const sums: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(.+?)\s*$/.exec(line);
    if (m) sums[m[2]] = m[1].toLowerCase();
  }
  return sums;
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function fetchOne(
  options: FetchModelOptions,
  file: string,
  optional: boolean,
  expected?: string,
): Promise<FetchedFile | undefined> {
  const target = join(options.outDir, file);
  const part = `${target}.part`;
  const log = options.log ?? (() => undefined);
  if (existsSync(target) && expected) {
    const done = await sha256Of(target);
    if (done === expected) {
      log(`${file}: already complete`);
      return { file, bytes: statSync(target).size, sha256: done, resumedFrom: statSync(target).size, verified: true };
    }
  }
  mkdirSync(join(target, '..'), { recursive: true });
  let have = existsSync(part) ? statSync(part).size : 0;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (have > 0) headers.range = `bytes=${have}-`;
  const url = fileUrl(options.baseUrl, file);
  let response: Response;
  try {
    response = await fetch(url, { headers, redirect: 'follow' });
  } catch (error) {
    throw new FetchModelError(`${file}: cannot reach ${url}: ${(error as Error).message}`);
  }
  if (response.status === 404 && optional) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.status === 416 && have > 0) {
    // Nothing left to send: the part is already whole (checked below).
    await response.body?.cancel();
  } else if (response.status === 200 || response.status === 206) {
    let append = false;
    if (response.status === 206) {
      const start = /bytes (\d+)-/.exec(response.headers.get('content-range') ?? '')?.[1];
      if (Number(start) !== have) {
        await response.body?.cancel();
        throw new FetchModelError(
          `${file}: asked to resume at byte ${have}, the server answered from ${start ?? 'an unknown offset'}`,
        );
      }
      append = true;
    } else {
      have = 0; // the server ignored the Range header: start over
    }
    if (!response.body) throw new FetchModelError(`${file}: the server sent no body`);
    const expectedLength = Number(response.headers.get('content-length') ?? NaN);
    const before = append ? have : 0;
    const sink = createWriteStream(part, { flags: append ? 'a' : 'w' });
    try {
      await pipeline(Readable.fromWeb(response.body as unknown as WebReadableStream), sink);
    } catch (error) {
      // pipeline settles as soon as it has destroyed the streams; writes already queued may still land. Wait for
      // the file to be closed, so the .part holds its final size when we report it (and when a rerun resumes).
      if (!sink.closed) await new Promise<void>((resolve) => sink.once('close', () => resolve()));
      throw new FetchModelError(
        `${file}: the download broke off after ${statSync(part).size} bytes (run again to resume): ${(error as Error).message}`,
      );
    }
    const got = statSync(part).size - before;
    if (Number.isFinite(expectedLength) && got !== expectedLength) {
      throw new FetchModelError(`${file}: got ${got} of ${expectedLength} bytes (run again to resume)`);
    }
  } else {
    await response.body?.cancel();
    throw new FetchModelError(`${file}: ${url} answered HTTP ${response.status}`);
  }

  const sha256 = await sha256Of(part);
  if (expected && sha256 !== expected) {
    rmSync(part, { force: true });
    throw new FetchModelError(
      `${file}: checksum mismatch: expected sha256 ${expected}, got ${sha256}; the partial file was removed`,
    );
  }
  renameSync(part, target);
  log(
    `${file}: ${statSync(target).size} bytes, sha256 ${sha256}${expected ? ' (verified)' : ' (no checksum given)'}${have ? `, resumed at byte ${have}` : ''}`,
  );
  return { file, bytes: statSync(target).size, sha256, resumedFrom: have, verified: Boolean(expected) };
}

/** Fetches the model directory; throws FetchModelError naming the file on any failure. */
export async function fetchModel(options: FetchModelOptions): Promise<FetchedFile[]> {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new FetchModelError(`url: "${options.baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new FetchModelError(`url: only http(s) URLs are supported, got ${url.protocol}`);
  mkdirSync(options.outDir, { recursive: true });

  const sums: Record<string, string> = {};
  const sumsResponse = await fetch(fileUrl(options.baseUrl, 'SHA256SUMS'), { headers: options.headers }).catch(
    () => undefined,
  );
  if (sumsResponse?.ok) Object.assign(sums, parseSha256Sums(await sumsResponse.text()));
  else await sumsResponse?.body?.cancel();
  for (const [file, hex] of Object.entries(options.sha256 ?? {})) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new FetchModelError(`sha256 for ${file}: "${hex}" is not 64 hex digits`);
    sums[file] = hex.toLowerCase();
  }

  const results: FetchedFile[] = [];
  for (const file of options.files ?? REQUIRED_FILES) {
    results.push((await fetchOne(options, file, false, sums[file]))!);
  }
  for (const file of options.optionalFiles ?? OPTIONAL_FILES) {
    const fetched = await fetchOne(options, file, true, sums[file]);
    if (fetched) results.push(fetched);
  }
  return results;
}
