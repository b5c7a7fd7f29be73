// The playground's static page (assets/ next to this file, copied to dist by the build), read once and served with
// a strict content security policy.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { ApiError } from '../../protocol/errors';
import type { PlaygroundLogLine } from './types';

export const PLAYGROUND_PATH = '/playground';

export const ASSETS: Record<string, { file: string; type: string }> = {
  [PLAYGROUND_PATH]: { file: 'index.html', type: 'text/html; charset=utf-8' },
  [`${PLAYGROUND_PATH}/app.js`]: { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  [`${PLAYGROUND_PATH}/app.css`]: { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const assetDir = path.join(__dirname, 'assets');

/** Answers GET of one of ASSETS' paths with its file, each file read once. */
export type AssetServer = (
  res: ServerResponse,
  line: PlaygroundLogLine,
  routePath: string,
) => Promise<[number, unknown]>;

export function createAssetServer(): AssetServer {
  const cache = new Map<string, Buffer>();
  return async (res, line, routePath) => {
    const { file, type } = ASSETS[routePath];
    let content = cache.get(file);
    if (!content) {
      try {
        content = await readFile(path.join(assetDir, file));
      } catch {
        throw new ApiError(
          500,
          `The playground's ${file} is missing from ${assetDir}; rebuild the package.`,
          'internal_error',
        );
      }
      cache.set(file, content);
    }
    res.writeHead(200, {
      'content-type': type,
      'content-length': content.length,
      'x-request-id': line.request_id,
      ...SECURITY_HEADERS,
    });
    res.end(content);
    return [200, undefined];
  };
}
