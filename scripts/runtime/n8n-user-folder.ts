// n8n's user folder (N8N_USER_FOLDER), and the project's nodes package installed into it.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { N8N_MODULES, REPO_ROOT } from './n8n';
import type { Cleanup, StackOptions } from './stack-types';

export const NODES_PACKAGE_NAME = 'n8n-nodes-judge-assistant';

/** Copies the nodes package into <user folder>/.n8n/nodes, where n8n loads it as an installed package. */
function installNodesPackage(userFolder: string): void {
  const modules = path.join(userFolder, '.n8n', 'nodes', 'node_modules');
  const target = path.join(modules, NODES_PACKAGE_NAME);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(path.join(REPO_ROOT, 'package.json'), path.join(target, 'package.json'));
  cpSync(path.join(REPO_ROOT, 'dist'), path.join(target, 'dist'), { recursive: true });
  // n8n-workflow must be n8n's own copy, so `instanceof` checks in n8n hold for our errors.
  const links: Record<string, string> = { 'n8n-workflow': path.join(N8N_MODULES, 'n8n-workflow') };
  // Packages the bundles leave external (scripts/build-nodes.mjs) resolve from the project's node_modules.
  for (const name of ['onnxruntime-node', '@huggingface/tokenizers']) {
    links[name] = path.join(REPO_ROOT, 'node_modules', name);
  }
  for (const [name, source] of Object.entries(links)) {
    if (!existsSync(source)) continue;
    const link = path.join(modules, name);
    mkdirSync(path.dirname(link), { recursive: true });
    rmSync(link, { recursive: true, force: true });
    symlinkSync(source, link, 'dir');
  }
  const manifest = path.join(userFolder, '.n8n', 'nodes', 'package.json');
  if (!existsSync(manifest)) {
    writeFileSync(manifest, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2));
  }
}

/** n8n's user folder: the caller's, or a fresh temporary one (removed by the clean-up). */
export function prepareUserFolder(options: StackOptions, cleanups: Cleanup[]): string {
  const temporaryFolder = options.userFolder === undefined;
  const userFolder = temporaryFolder ? mkdtempSync(path.join(tmpdir(), 'n8n-')) : path.resolve(options.userFolder!);
  mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
  if (temporaryFolder) cleanups.push(async () => rmSync(userFolder, { recursive: true, force: true }));
  return userFolder;
}

/** The nodes package, when asked for (default: when it is built). */
export function installNodesPackageIfWanted(options: StackOptions, userFolder: string): void {
  const wantNodes = options.installNodesPackage ?? existsSync(path.join(REPO_ROOT, 'dist'));
  if (wantNodes) installNodesPackage(userFolder);
}
