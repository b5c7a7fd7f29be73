// Generated benchmark tables replace only what is between their markers; the analysis around them stays.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceGenerated, writeGeneratedSection } from '../../../tools/bench/markers';

describe('replaceGenerated', () => {
  const doc = [
    '## Judge server',
    'Analysis written by hand.',
    '<!-- generated:judge-server -->',
    'old table',
    '<!-- /generated:judge-server -->',
    'More analysis.',
    '<!-- generated:onnx -->',
    'onnx table',
    '<!-- /generated:onnx -->',
  ].join('\n');

  it('replaces the named block only, keeping every line around it', () => {
    const next = replaceGenerated(doc, 'judge-server', 'new table\n');
    expect(next).toBe(doc.replace('old table', 'new table'));
    expect(replaceGenerated(next, 'judge-server', 'new table')).toBe(next);
  });

  it('refuses a document without the markers, naming them', () => {
    expect(() => replaceGenerated('## Judge server\nno markers', 'judge-server', 'x')).toThrow(
      /no "<!-- generated:judge-server -->" … "<!-- \/generated:judge-server -->" pair/,
    );
  });
});

describe('writeGeneratedSection', () => {
  it('formats only its own block: the rest of the file stays byte for byte, unformatted parts included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'markers-'));
    try {
      const file = join(dir, 'BENCHMARKS.md');
      const others = '## Theirs\n\n|a|b|\n|-|-|\n|1|2|\n\n';
      writeFileSync(file, `${others}## Mine\n<!-- generated:mine -->\nold\n<!-- /generated:mine -->\n${others}`);
      await writeGeneratedSection('mine', '|x|y|\n|-|-|\n|10|2|', file);
      const table = '| x   | y   |\n| --- | --- |\n| 10  | 2   |';
      expect(readFileSync(file, 'utf8')).toBe(
        `${others}## Mine\n<!-- generated:mine -->\n${table}\n<!-- /generated:mine -->\n${others}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
