// The browser service's temporary folder: a snap's Chromium (Ubuntu's only Chromium) cannot see the host's /tmp, so
// playwright's profile folder goes into the user folder then; any other Chromium keeps the default.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapTmpDir } from '../../../scripts/runtime/stack-browser';

const userFolder = mkdtempSync(path.join(tmpdir(), 'stack-browser-'));
afterAll(() => rmSync(userFolder, { recursive: true, force: true }));

describe('snapTmpDir', () => {
  it("puts a snap Chromium's temporary folder in the user folder, made private", () => {
    const { TMPDIR } = snapTmpDir('/snap/bin/chromium', userFolder);
    expect(TMPDIR).toBe(path.join(userFolder, 'browser-tmp'));
    expect(statSync(TMPDIR!).mode & 0o777).toBe(0o700);
  });

  it("leaves Debian's Chromium with the default temporary folder", () => {
    expect(snapTmpDir('/usr/bin/chromium', userFolder)).toEqual({});
  });
});
