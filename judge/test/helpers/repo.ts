import { readFileSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export interface CorpusCase {
  id: string;
  state: string | object;
  questions: Record<string, { type: string; instructions?: unknown; criteria?: unknown }>;
}

/** The 240 JevBench cases, read in place from ../shared (not copied into the repository). */
export function loadCorpus(): CorpusCase[] {
  const file = path.resolve(repoRoot, '..', 'shared', 'data', 'jevbench-240', 'cases.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as CorpusCase);
}
