// The nightly consolidation per 10k memories (issue 34's benchmark): one user with N live memories on the embedded
// Postgres 17 (fsync off), spread over two years, importance 1-5, a tenth of them repeats of another in a different
// word order; `consolidateMemories` as the node runs it, with the summaries from an instant stand-in that counts the
// calls and their characters (the model's own time is the provider's, measured in the gateway's benchmarks). Two
// cases: within the budget (repeats merged only) and over it (budget 2,000: folds too). Each repeat reloads the
// user's memories. Run: npx tsx scripts/bench-consolidation.ts [--memories 10000] [--repeats 3] [--write]
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import { consolidateMemories, resolveIdentity, runMigrations } from 'assistant-core';
import { argument, startBenchDatabase } from './bench-recall';

const SECTION = '## Memory consolidation (issue 34)';

/** 3,000 made-up words (two or three syllables); picks are skewed, so a few are common and most are rare. */
const SYLLABLES = 'ka lo mi ne su ta ri po ve da mo li ru se no'.split(' ');
const WORDS = Array.from({ length: 3000 }, (_, i) => {
  const [a, b, c] = [i % 15, Math.floor(i / 15) % 15, Math.floor(i / 225)];
  return SYLLABLES[a] + SYLLABLES[b] + (c > 0 ? SYLLABLES[c % 15] + (c >= 15 ? 'x' : '') : '');
});

/** N memories a year or two old: 8-14 skewed word picks each, a number in one of six, a tenth repeating another's
 * words in reverse order. */
async function load(pool: Pool, userId: string, count: number): Promise<void> {
  await pool.query('DELETE FROM assistant.memories WHERE user_id = $1', [userId]);
  await pool.query('DELETE FROM assistant.consolidation_runs WHERE user_id = $1', [userId]);
  await pool.query('SELECT setseed(0.34)');
  const repeats = Math.floor(count / 10);
  await pool.query(
    `WITH raw AS (
       SELECT g, (SELECT string_agg(($2::text[])[1 + floor(power(random(), 3) * $4::int)::int], ' ')
                    FROM generate_series(1, 8 + (g % 7))) || CASE WHEN g % 6 = 0 THEN ' ' || (g % 50) ELSE '' END AS words
         FROM generate_series(1, $3::int) AS g)
     INSERT INTO assistant.memories (user_id, content, kind, importance, source, confirmed, language, search_vector, created_at, updated_at)
     SELECT $1, words, 'fact', 1 + g % 5, 'bench', true, 'english', to_tsvector('english', words), now() - interval '31 days' - (g % 17000) * interval '1 hour', now()
       FROM raw`,
    [userId, WORDS, count - repeats, WORDS.length],
  );
  // A repeat: another memory's words in reverse order (the same numbers, word overlap 1).
  await pool.query(
    `INSERT INTO assistant.memories (user_id, content, kind, importance, source, confirmed, language, search_vector, created_at, updated_at)
     SELECT user_id, array_to_string(ARRAY(SELECT w FROM unnest(string_to_array(content, ' ')) WITH ORDINALITY AS t(w, n)
                                            ORDER BY n DESC), ' '),
            kind, importance, source, true, language, search_vector, created_at + interval '1 day', now()
       FROM assistant.memories WHERE user_id = $1 ORDER BY id LIMIT $2`,
    [userId, repeats],
  );
  await pool.query('VACUUM ANALYZE assistant.memories');
}

interface Row {
  case: string;
  memories: number;
  budget: number;
  ms: number[];
  merged: number;
  folded: number;
  summaries: number;
  summaryChars: number;
  liveAfter: number;
  load: string;
}

async function measure(pool: Pool, userId: string, label: string, count: number, budget: number, repeats: number) {
  const row: Row = {
    case: label,
    memories: count,
    budget,
    ms: [],
    merged: 0,
    folded: 0,
    summaries: 0,
    summaryChars: 0,
    liveAfter: 0,
    load: '',
  };
  const before = loadavg()[0].toFixed(1);
  for (let i = 0; i < repeats; i++) {
    await load(pool, userId, count);
    let calls = 0;
    let chars = 0;
    const summarise = async (texts: string[]) => {
      calls++;
      chars += texts.reduce((sum, text) => sum + text.length + 3, 0);
      return `Summary of ${texts.length} old notes.`;
    };
    const started = performance.now();
    const result = await consolidateMemories(pool, userId, { now: new Date(), budget, summarise });
    row.ms.push(performance.now() - started);
    row.merged = result.merged.reduce((sum, entry) => sum + entry.ids.length, 0);
    row.folded = result.folded.reduce((sum, entry) => sum + entry.ids.length, 0);
    row.summaries = calls;
    row.summaryChars = chars;
    row.liveAfter = result.liveAfter;
  }
  row.load = `${before} → ${loadavg()[0].toFixed(1)}`;
  return row;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function table(rows: Row[], count: number, repeats: number): string {
  const lines = [
    `\`npx tsx scripts/bench-consolidation.ts --memories ${count} --repeats ${repeats} --write\` — ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, Postgres 17 (embedded, fsync off); median of ${repeats}, each on freshly loaded memories.`,
    '',
    '| case | memories | budget | ms (median) | ms per 10k memories | merged away | folded | summary calls | summary prompt tokens (≈ chars / 4) | live after | load |',
    '| ---- | -------: | -----: | ----------: | ------------------: | ----------: | -----: | ------------: | ----------------------------------: | ---------: | ---- |',
  ];
  for (const row of rows) {
    const ms = median(row.ms);
    lines.push(
      `| ${row.case} | ${row.memories} | ${row.budget} | ${ms.toFixed(0)} | ${((ms * 10_000) / row.memories).toFixed(0)} | ${row.merged} | ${row.folded} | ${row.summaries} | ${Math.round(row.summaryChars / 4)} | ${row.liveAfter} | ${row.load} |`,
    );
  }
  lines.push('', `Run at ${new Date().toISOString()}.`);
  return lines.join('\n');
}

function writeSection(body: string): void {
  const file = path.join(__dirname, '..', 'docs', 'BENCHMARKS.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- generated:consolidation -->';
  const end = '<!-- /generated:consolidation -->';
  const block = `${start}\n\n${body}\n\n${end}`;
  if (text.includes(start)) {
    writeFileSync(file, text.slice(0, text.indexOf(start)) + block + text.slice(text.indexOf(end) + end.length));
  } else {
    writeFileSync(file, `${text.trimEnd()}\n\n${SECTION}\n\n${block}\n`);
  }
}

async function main(): Promise<void> {
  const count = argument('memories', 10_000);
  const repeats = argument('repeats', 3);
  const database = await startBenchDatabase('bench_consolidation');
  const { pool } = database;
  try {
    await runMigrations(pool);
    const { userId } = await resolveIdentity(pool, 'api', 'bench-consolidation');
    const rows = [
      await measure(pool, userId, 'within the budget: repeats merged', count, count * 2, repeats),
      await measure(pool, userId, 'over the budget: merged and folded', count, 2000, repeats),
    ];
    const body = table(rows, count, repeats);
    console.log(body);
    if (process.argv.includes('--write')) writeSection(body);
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
