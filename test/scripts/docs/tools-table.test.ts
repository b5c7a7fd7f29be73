// scripts/docs/tools-table.ts: the table goes between its markers, formatted, and only there; a file without the
// markers is refused. Run on a copy in a temporary folder, never on docs/ASSISTANT.md itself.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolsTable, TOOLS_TABLE_MARKERS } from '../../../assistant/src/tools/docs-table';
import { replaceBetweenMarkers, writeToolsTable } from '../../../scripts/docs/tools-table';

const { start, end } = TOOLS_TABLE_MARKERS;
let dir = '';

afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('the tools table script', () => {
  it('replaces only what stands between the markers', () => {
    const text = `# Title\n\nbefore\n\n${start}\nold table\n${end}\n\nafter\n`;
    expect(replaceBetweenMarkers(text, TOOLS_TABLE_MARKERS, '| new |')).toBe(
      `# Title\n\nbefore\n\n${start}\n\n| new |\n\n${end}\n\nafter\n`,
    );
  });

  it('refuses a file without the markers', () => {
    expect(() => replaceBetweenMarkers('no markers', TOOLS_TABLE_MARKERS, 'x')).toThrow(/generated:tools/);
    expect(() => replaceBetweenMarkers(`${end}\n${start}`, TOOLS_TABLE_MARKERS, 'x')).toThrow(/generated:tools/);
  });

  it('writes the registry’s table into a docs file, formatted, keeping the text around it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tools-table-'));
    const file = path.join(dir, 'ASSISTANT.md');
    writeFileSync(file, `# The assistant\n\nSome text.\n\n${start}\n${end}\n\nMore text.\n`);
    await writeToolsTable(file);
    const written = readFileSync(file, 'utf8');
    expect(written).toBe(`# The assistant\n\nSome text.\n\n${start}\n\n${toolsTable()}\n\n${end}\n\nMore text.\n`);
  });
});
