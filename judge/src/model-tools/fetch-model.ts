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

interface FetchOptionsBase {
  outDir: string;
  /** Sent with every request, e.g. {authorization: "Bearer …"}; never logged. */
  headers?: Record<string, string>;
  log?: (line: string) => void;
}

export interface FetchModelOptions extends FetchOptionsBase {
  /** The directory URL; files are fetched from `<baseUrl>/<file>`. */
  baseUrl: string;
  /** Files that must exist (default REQUIRED_FILES) and files fetched when present (default OPTIONAL_FILES). */
  files?: string[];
  optionalFiles?: string[];
  /** file → expected SHA-256 (hex). Merged over the SHA256SUMS file when the server has one. */
  sha256?: Record<string, string>;
}

export interface FetchedFile {
  /** The local name in outDir. */
  file: string;
  /** The path in the repository, for a Hugging Face repo fetch. */
  remote?: string;
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

/** The git blob id of a file: SHA-1 of "blob <size>\0" followed by the content. */
async function gitBlobOidOf(path: string): Promise<string> {
  const hash = createHash('sha1');
  hash.update(`blob ${statSync(path).size}\0`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface Download {
  /** The local name (relative to outDir), also the name used in messages. */
  file: string;
  url: string;
  optional: boolean;
  /** Expected SHA-256 (hex). */
  expected?: string;
  /** Expected git blob id (SHA-1 of "blob <size>\0" + content), as the Hugging Face tree lists for non-LFS files. */
  gitOid?: string;
  /** Where the file comes from, when it differs from its local name (e.g. "onnx/model_quantized.onnx"). */
  remote?: string;
}

async function fetchOne(options: FetchOptionsBase, download: Download): Promise<FetchedFile | undefined> {
  const { file, url, optional, expected, gitOid } = download;
  const target = join(options.outDir, file);
  const part = `${target}.part`;
  const log = options.log ?? (() => undefined);
  if (existsSync(target) && (expected || gitOid)) {
    const done = await sha256Of(target);
    if (expected ? done === expected : (await gitBlobOidOf(target)) === gitOid) {
      log(`${file}: already complete`);
      const bytes = statSync(target).size;
      return { file, remote: download.remote, bytes, sha256: done, resumedFrom: bytes, verified: true };
    }
  }
  mkdirSync(join(target, '..'), { recursive: true });
  let have = existsSync(part) ? statSync(part).size : 0;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (have > 0) headers.range = `bytes=${have}-`;
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
  if (!expected && gitOid) {
    const oid = await gitBlobOidOf(part);
    if (oid !== gitOid) {
      rmSync(part, { force: true });
      throw new FetchModelError(
        `${file}: checksum mismatch: expected git blob ${gitOid}, got ${oid}; the partial file was removed`,
      );
    }
  }
  renameSync(part, target);
  const verified = Boolean(expected || gitOid);
  const how = expected ? ' (verified)' : gitOid ? ', git blob verified' : ' (no checksum given)';
  const from = download.remote && download.remote !== file ? ` from ${download.remote}` : '';
  log(
    `${file}${from}: ${statSync(target).size} bytes, sha256 ${sha256}${how}${have ? `, resumed at byte ${have}` : ''}`,
  );
  return { file, remote: download.remote, bytes: statSync(target).size, sha256, resumedFrom: have, verified };
}

function checkUrl(text: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FetchModelError(`${field}: "${text}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new FetchModelError(`${field}: only http(s) URLs are supported, got ${url.protocol}`);
  return url;
}

/** Fetches the model directory; throws FetchModelError naming the file on any failure. */
export async function fetchModel(options: FetchModelOptions): Promise<FetchedFile[]> {
  checkUrl(options.baseUrl, 'url');
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
    results.push(
      (await fetchOne(options, { file, url: fileUrl(options.baseUrl, file), optional: false, expected: sums[file] }))!,
    );
  }
  for (const file of options.optionalFiles ?? OPTIONAL_FILES) {
    const fetched = await fetchOne(options, {
      file,
      url: fileUrl(options.baseUrl, file),
      optional: true,
      expected: sums[file],
    });
    if (fetched) results.push(fetched);
  }
  return results;
}

// ---- Hugging Face repositories ----------------------------------------------------------------------------------
// onnx-community/* and Optimum exports keep tokenizer.json, tokenizer_config.json and config.json at the repository
// root and the graphs under onnx/ (model.onnx, model_quantized.onnx, model_fp16.onnx, model.onnx_data, …). The repo
// tree is listed with `GET <endpoint>/api/models/<repo>/tree/<revision>?recursive=true` (paged by a `Link: rel="next"`
// header); each file is downloaded from `<endpoint>/<repo>/resolve/<revision>/<path>` and checked against the tree:
// LFS files by their SHA-256 (`lfs.oid`), small files by their git blob id (`oid`).

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
/** Root files a model directory needs besides the graph. */
export const HUB_REQUIRED_FILES = ['tokenizer.json', 'config.json'];
export const HUB_OPTIONAL_FILES = [
  'tokenizer_config.json',
  'special_tokens_map.json',
  'generation_config.json',
  'chat_template.jinja',
];
/** Tried in order when no model file is named. */
export const HUB_DEFAULT_MODEL_FILES = ['onnx/model.onnx', 'model.onnx'];

export interface HubTreeEntry {
  type: 'file' | 'directory';
  path: string;
  size?: number;
  /** git object id (SHA-1 of the blob); for an LFS file, that of its pointer. */
  oid?: string;
  lfs?: { oid: string; size: number };
}

export interface FetchHubModelOptions extends FetchOptionsBase {
  /** "owner/name". */
  repo: string;
  /** Branch, tag or commit (default "main"). */
  revision?: string;
  /** Default https://huggingface.co. */
  endpoint?: string;
  /**
   * The graph to fetch, saved as model.onnx: a path in the repo ("onnx/model_quantized.onnx") or a file name looked
   * up under onnx/ and then at the root ("model_fp16.onnx"). Default: onnx/model.onnx, then model.onnx.
   */
  modelFile?: string;
  /** local file → expected SHA-256 (hex); overrides the checksum the tree gives. */
  sha256?: Record<string, string>;
}

export interface HubPlanItem {
  /** Path in the repository. */
  remote: string;
  /** Name in the output directory. */
  file: string;
  sha256?: string;
  gitOid?: string;
}

export interface HubPlan {
  /** The repository path of the chosen graph. */
  modelFile: string;
  items: HubPlanItem[];
}

function hubBase(endpoint: string): string {
  return endpoint.replace(/\/+$/, '');
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function checkRepo(repo: string): void {
  if (!/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/.test(repo))
    throw new FetchModelError(`repo: "${repo}" is not "owner/name" (e.g. onnx-community/Qwen2.5-0.5B-Instruct)`);
}

/** The `rel="next"` URL of a Link header, if any. */
function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/** Lists every file of a repository at a revision (all pages). */
export async function listHubTree(
  options: Pick<FetchHubModelOptions, 'repo' | 'revision' | 'endpoint' | 'headers'>,
): Promise<HubTreeEntry[]> {
  checkRepo(options.repo);
  const endpoint = hubBase(options.endpoint ?? DEFAULT_HUB_ENDPOINT);
  checkUrl(endpoint, 'endpoint');
  const revision = options.revision ?? 'main';
  let url: string | undefined =
    `${endpoint}/api/models/${encodePath(options.repo)}/tree/${encodeURIComponent(revision)}?recursive=true`;
  const entries: HubTreeEntry[] = [];
  for (let page = 0; url; page++) {
    if (page > 1000)
      throw new FetchModelError(`repo: the tree listing of ${options.repo} did not end after 1000 pages`);
    let response: Response;
    try {
      response = await fetch(url, { headers: options.headers, redirect: 'follow' });
    } catch (error) {
      throw new FetchModelError(`repo: cannot reach ${url}: ${(error as Error).message}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      const hint =
        response.status === 401 || response.status === 403
          ? ' (a private or gated repo needs a token: --token-env HF_TOKEN)'
          : response.status === 404
            ? ` (no such repo, or no revision "${revision}")`
            : '';
      throw new FetchModelError(`repo: listing ${options.repo} at ${revision} answered HTTP ${response.status}${hint}`);
    }
    const body = (await response.json().catch(() => undefined)) as unknown;
    if (!Array.isArray(body))
      throw new FetchModelError(`repo: the tree listing of ${options.repo} at ${url} is not a JSON array`);
    for (const raw of body as Record<string, unknown>[]) {
      if (typeof raw?.path !== 'string' || (raw.type !== 'file' && raw.type !== 'directory'))
        throw new FetchModelError(`repo: the tree listing of ${options.repo} has an entry without type/path`);
      entries.push(raw as unknown as HubTreeEntry);
    }
    const next = nextLink(response.headers.get('link'));
    url = next ? new URL(next, url).toString() : undefined;
  }
  return entries;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

function baseOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * What to download from a repository tree: the chosen graph (as model.onnx), its external data files (names kept,
 * since the graph refers to them by name), and the tokenizer and config files at the root.
 */
export function planHubFetch(tree: HubTreeEntry[], modelFile?: string): HubPlan {
  const files = new Map(tree.filter((e) => e.type === 'file').map((e) => [e.path, e]));
  const graphs = [...files.keys()].filter((p) => p.endsWith('.onnx')).sort();
  const available = graphs.length ? graphs.join(', ') : 'none';
  let chosen: string | undefined;
  if (modelFile === undefined) {
    chosen = HUB_DEFAULT_MODEL_FILES.find((p) => files.has(p));
    if (!chosen)
      throw new FetchModelError(
        `model-file: the repo has no ${HUB_DEFAULT_MODEL_FILES.join(' or ')}; name one with --model-file (its .onnx files: ${available})`,
      );
  } else {
    const candidates = modelFile.includes('/') ? [modelFile] : [`onnx/${modelFile}`, modelFile];
    chosen = candidates.find((p) => files.has(p));
    if (!chosen)
      throw new FetchModelError(`model-file: "${modelFile}" is not in the repo (its .onnx files: ${available})`);
    if (!chosen.endsWith('.onnx'))
      throw new FetchModelError(`model-file: "${chosen}" is not an .onnx file (its .onnx files: ${available})`);
  }
  const checks = (entry: HubTreeEntry) =>
    entry.lfs ? { sha256: entry.lfs.oid.toLowerCase() } : entry.oid ? { gitOid: entry.oid.toLowerCase() } : {};
  const items: HubPlanItem[] = [{ remote: chosen, file: 'model.onnx', ...checks(files.get(chosen)!) }];
  // External data: "<graph>_data", "<graph>_data_1", "<graph>.data" … beside the graph (Optimum / onnx-community).
  const dir = dirOf(chosen);
  const graphName = baseOf(chosen);
  for (const [path, entry] of files) {
    if (dirOf(path) !== dir) continue;
    const name = baseOf(path);
    if (name.startsWith(`${graphName}_data`) || name.startsWith(`${graphName}.data`))
      items.push({ remote: path, file: name, ...checks(entry) });
  }
  const rootNames = [...files.keys()].filter((p) => !p.includes('/'));
  for (const name of HUB_REQUIRED_FILES) {
    const entry = files.get(name);
    if (!entry)
      throw new FetchModelError(
        `${name}: the repo has no ${name} at its root (root files: ${rootNames.join(', ') || 'none'})`,
      );
    items.push({ remote: name, file: name, ...checks(entry) });
  }
  for (const name of HUB_OPTIONAL_FILES) {
    const entry = files.get(name);
    if (entry) items.push({ remote: name, file: name, ...checks(entry) });
  }
  return { modelFile: chosen, items };
}

/** Fetches a model directory from a Hugging Face repository as its tree really lays it out. */
export async function fetchHubModel(options: FetchHubModelOptions): Promise<{ plan: HubPlan; files: FetchedFile[] }> {
  const endpoint = hubBase(options.endpoint ?? DEFAULT_HUB_ENDPOINT);
  const revision = options.revision ?? 'main';
  const plan = planHubFetch(await listHubTree(options), options.modelFile);
  const overrides: Record<string, string> = {};
  for (const [file, hex] of Object.entries(options.sha256 ?? {})) {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new FetchModelError(`sha256 for ${file}: "${hex}" is not 64 hex digits`);
    if (!plan.items.some((i) => i.file === file))
      throw new FetchModelError(
        `sha256 for ${file}: not one of the files fetched (${plan.items.map((i) => i.file).join(', ')})`,
      );
    overrides[file] = hex.toLowerCase();
  }
  mkdirSync(options.outDir, { recursive: true });
  (options.log ?? (() => undefined))(`${options.repo}@${revision}: graph ${plan.modelFile} → model.onnx`);
  const files: FetchedFile[] = [];
  for (const item of plan.items) {
    const url = `${endpoint}/${encodePath(options.repo)}/resolve/${encodeURIComponent(revision)}/${encodePath(item.remote)}`;
    const expected = overrides[item.file] ?? item.sha256;
    const fetched = await fetchOne(options, {
      file: item.file,
      url,
      optional: false,
      expected,
      gitOid: overrides[item.file] ? undefined : item.gitOid,
      remote: item.remote,
    });
    files.push(fetched!);
  }
  return { plan, files };
}
