// Every shipped workflow carries an integer meta.version, and a changed workflow has a raised one: the runtime
// installs a workflow again only when its version rises (scripts/runtime/importer.js).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentVersions, LOCK_FILE, unversionedChanges, type VersionLock } from '../../scripts/workflow-versions';

const locked = JSON.parse(readFileSync(LOCK_FILE, 'utf8')) as VersionLock;

describe('workflow versions', () => {
  it('every workflow has a version, recorded in the lock', () => {
    const current = currentVersions();
    expect(Object.keys(locked).sort()).toEqual(Object.keys(current).sort());
    for (const entry of Object.values(current))
      expect(Number.isInteger(entry.version) && entry.version >= 1).toBe(true);
  });

  it('no workflow changed without a raised version', () => {
    expect(unversionedChanges(locked, currentVersions())).toEqual([]);
  });

  it('the check catches a change at the same version and a version that fell', () => {
    const before: VersionLock = {
      a: { version: 2, hash: 'x' },
      b: { version: 3, hash: 'y' },
      c: { version: 1, hash: 'z' },
    };
    const after: VersionLock = {
      a: { version: 2, hash: 'x2' },
      b: { version: 2, hash: 'y' },
      c: { version: 2, hash: 'z2' },
    };
    const problems = unversionedChanges(before, after);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^a: changed, but meta.version is still 2/);
    expect(problems[1]).toMatch(/^b: meta.version fell from 3 to 2/);
  });
});
