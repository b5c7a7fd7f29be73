// Part of `npm run build`: the playground's and the console's static pages (HTML, JS, CSS) are not TypeScript, so
// tsc does not emit them; copy each next to its compiled code (dist/server/<page>/assets), where the server reads it.
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
for (const page of ['playground', 'console']) {
  const from = path.join(root, 'src', 'server', page, 'assets');
  const to = path.join(root, 'dist', 'server', page, 'assets');
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
}
