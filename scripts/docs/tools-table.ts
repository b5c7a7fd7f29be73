// Writes the main agent's tool table (rendered from assistant/src/tools/registry.ts) into docs/ASSISTANT.md between
// its generated:tools markers, formatted by the repository's prettier settings; the rest of the file stays as written.
//   tsx scripts/docs/tools-table.ts
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { toolsTable, TOOLS_TABLE_MARKERS } from '../../assistant/src/tools/docs-table';

export const ASSISTANT_DOCS = path.join(__dirname, '..', '..', 'docs', 'ASSISTANT.md');

/** `text` with what stands between the markers replaced by `content`; throws when the markers are missing. */
export function replaceBetweenMarkers(text: string, markers: { start: string; end: string }, content: string): string {
  const from = text.indexOf(markers.start);
  const to = text.indexOf(markers.end);
  if (from === -1 || to === -1 || to < from) {
    throw new Error(`no "${markers.start}" … "${markers.end}" pair: add them where the table belongs`);
  }
  return `${text.slice(0, from + markers.start.length)}\n\n${content.trim()}\n\n${text.slice(to)}`;
}

/** Writes the table into `file` (docs/ASSISTANT.md unless told); returns the file's path. */
export async function writeToolsTable(file = ASSISTANT_DOCS): Promise<string> {
  const text = replaceBetweenMarkers(readFileSync(file, 'utf8'), TOOLS_TABLE_MARKERS, toolsTable());
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  return file;
}

if (require.main === module) {
  writeToolsTable().then(
    (file) => console.log(`wrote the tools table into ${path.relative(process.cwd(), file)}`),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
