// Builds the n8n nodes package: every node and credential listed in package.json's `n8n` block is bundled
// from its TypeScript source (nodes/X/X.node.ts → dist/nodes/X/X.node.js), with n8n-workflow left to n8n.
// Icons and codex files beside a node are copied next to its bundle.
import { build } from 'esbuild';
import { cpSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outputs = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
const entryPoints = Object.fromEntries(
  outputs.map((out) => [
    out.replace(/^dist\//, '').replace(/\.js$/, ''),
    join(root, out.replace(/^dist\//, '').replace(/\.js$/, '.ts')),
  ]),
);

if (outputs.length > 0) {
  await build({
    entryPoints,
    outdir: join(root, 'dist'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: true,
    external: ['n8n-workflow', 'pg-native', 'onnxruntime-node', '@huggingface/tokenizers'],
    logLevel: 'warning',
  });
}

const assets = /\.(svg|png|json)$/;
for (const top of ['nodes', 'credentials']) {
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (assets.test(name)) cpSync(path, join(root, 'dist', relative(root, path)));
    }
  };
  try {
    walk(join(root, top));
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
}
console.log(`built ${outputs.length} node and credential bundles into dist/`);
