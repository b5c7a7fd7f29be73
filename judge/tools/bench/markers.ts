// Generated benchmark tables live between two markers in docs/BENCHMARKS.md, so a re-run replaces only them and
// never the analysis written around them:
//   <!-- generated:NAME -->
//   …replaced by each run…
//   <!-- /generated:NAME -->
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';

export const BENCHMARKS_FILE = path.resolve(__dirname, '..', '..', '..', 'docs', 'BENCHMARKS.md');

export function markers(name: string): { start: string; end: string } {
  return { start: `<!-- generated:${name} -->`, end: `<!-- /generated:${name} -->` };
}

/** Replaces what is between the markers named `name` in `text`; throws when they are missing. */
export function replaceGenerated(text: string, name: string, content: string): string {
  const { start, end } = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`docs/BENCHMARKS.md has no "${start}" … "${end}" pair; add them where the table belongs`);
  }
  return `${text.slice(0, from + start.length)}\n${content.trim()}\n${text.slice(to)}`;
}

/**
 * Writes `content` between the markers named `name` in docs/BENCHMARKS.md, formatted by the repository's prettier
 * settings (so the format check passes); returns the file's path.
 */
export async function writeGenerated(name: string, content: string, file = BENCHMARKS_FILE): Promise<string> {
  const text = replaceGenerated(readFileSync(file, 'utf8'), name, content);
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  return file;
}

/**
 * writeGenerated for a file others edit at the same time: only `content` is formatted (as Markdown, by the same
 * settings), and the file is read just before it is written back, so nothing outside the markers changes.
 */
export async function writeGeneratedSection(name: string, content: string, file = BENCHMARKS_FILE): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {};
  const formatted = await prettier.format(content, { ...options, parser: 'markdown' });
  writeFileSync(file, replaceGenerated(readFileSync(file, 'utf8'), name, formatted));
  return file;
}
