// Part of `npm run build`: the playground's static page (HTML, JS, CSS) is not TypeScript, so tsc does not emit it;
// copy it next to the compiled server (dist/server/playground/assets), where the server reads it.
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const from = path.join(root, 'src', 'server', 'playground', 'assets');
const to = path.join(root, 'dist', 'server', 'playground', 'assets');
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
