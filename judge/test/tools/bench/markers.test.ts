// Generated benchmark tables replace only what is between their markers; the analysis around them stays.
import { describe, expect, it } from 'vitest';
import { replaceGenerated } from '../../../tools/bench/markers';

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
