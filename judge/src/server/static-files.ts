// A page's static files (an assets/ folder next to its code, copied to dist by the build), each read once and served
// with a strict content security policy: the playground's and the console's.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { ApiError } from '../protocol/errors';

export type AssetTable = Record<string, { file: string; type: string }>;

export interface StaticFiles {
  has(routePath: string): boolean;
  /** Answers GET of one of the table's paths with its file. */
  serve(res: ServerResponse, requestId: string, routePath: string): Promise<[number, unknown]>;
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

export function createStaticFiles(page: string, codeDir: string, table: AssetTable): StaticFiles {
  const assetDir = path.join(codeDir, 'assets');
  const cache = new Map<string, Buffer>();
  return {
    has: (routePath) => Object.hasOwn(table, routePath),
    async serve(res, requestId, routePath) {
      const { file, type } = table[routePath];
      let content = cache.get(file);
      if (!content) {
        try {
          content = await readFile(path.join(assetDir, file));
        } catch {
          throw new ApiError(500, `The ${page}'s ${file} is missing from ${assetDir}; rebuild the package.`);
        }
        cache.set(file, content);
      }
      res.writeHead(200, {
        'content-type': type,
        'content-length': content.length,
        'x-request-id': requestId,
        ...SECURITY_HEADERS,
      });
      res.end(content);
      return [200, undefined];
    },
  };
}
