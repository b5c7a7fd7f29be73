// Keeps test/workflows/versions.lock.json: each shipped workflow's `meta.version` and a hash of its editable form. The
// runtime installs a workflow again only when its version rises, so a change without a raised version would never
// reach an installed n8n: test/workflows/versions.test.ts refuses that, and this script records a raised version.
//   tsx scripts/workflow-versions.ts           update the lock after raising meta.version of changed workflows
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { editableForm, workflowVersion } from './runtime/importer';
import { readWorkflowFiles } from './runtime/workflow-files';

export const WORKFLOWS_DIR = path.join(__dirname, '..', 'workflows');
export const LOCK_FILE = path.join(__dirname, '..', 'test', 'workflows', 'versions.lock.json');

export type VersionLock = Record<string, { version: number; hash: string }>;

/** The version and editable-form hash of every workflow file, by id. */
export function currentVersions(dir = WORKFLOWS_DIR): VersionLock {
  const entries = readWorkflowFiles([dir]).map((w) => {
    const json = JSON.parse(readFileSync(w.file, 'utf8'));
    const hash = createHash('sha256')
      .update(JSON.stringify(editableForm(json)))
      .digest('hex');
    return [w.id, { version: workflowVersion(json, w.file), hash }] as const;
  });
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)));
}

/** Workflows whose form changed while their version did not rise (or fell), as sentences. */
export function unversionedChanges(locked: VersionLock, current: VersionLock): string[] {
  const problems: string[] = [];
  for (const [id, now] of Object.entries(current)) {
    const before = locked[id];
    if (!before) continue;
    if (now.version < before.version)
      problems.push(`${id}: meta.version fell from ${before.version} to ${now.version}`);
    else if (now.hash !== before.hash && now.version === before.version) {
      problems.push(
        `${id}: changed, but meta.version is still ${now.version}; raise it, then run tsx scripts/workflow-versions.ts`,
      );
    }
  }
  return problems;
}

if (require.main === module) {
  const current = currentVersions();
  const locked: VersionLock = JSON.parse(readFileSync(LOCK_FILE, 'utf8').toString() || '{}');
  const problems = unversionedChanges(locked, current);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(1);
  }
  writeFileSync(LOCK_FILE, JSON.stringify(current, null, 2) + '\n');
  console.log(
    `recorded ${Object.keys(current).length} workflow versions in ${path.relative(process.cwd(), LOCK_FILE)}`,
  );
}
