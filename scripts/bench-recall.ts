// Benchmark: memory recall for one user with 100k memories, on a real Postgres 17 (started here, removed after).
//   node_modules/.bin/tsx scripts/bench-recall.ts [--memories 100000] [--queries 200] [--data-dir DIR [--load-only]] [--write]
// Loads the memories in one INSERT … SELECT (--data-dir: into a kept cluster there, loaded once and reused by
// later runs with the same --memories), then times recall() (the same code the Assistant Memory node runs)
// for a fixed query mix, side by side with the query as it was before migration 32 (bench-recall-before.ts) and,
// with --scans, with index scans disabled; it compares the memories each returns. --write puts the result into the
// "Assistant memory recall" section of docs/BENCHMARKS.md.
// Recall by meaning (embeddings, pgvector on PGlite): scripts/bench-recall-meaning.ts, on this file's data.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { Pool, type PoolClient } from 'pg';
import {
  getUserSettings,
  recall,
  recallParameters,
  recallSql,
  resolveIdentity,
  runMigrations,
  searchTerms,
} from '../assistant/src';
import { recallParametersBefore, recallSqlBefore } from './bench-recall-before';
import { startPostgres } from './runtime/postgres';

const SECTION = '## Assistant memory recall';
/** The embedding model's name on the benchmark's random embeddings. */
export const BENCH_MODEL = 'bench-random-unit';

export function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: expected a positive integer`);
  return value;
}

/** A deterministic vocabulary of pseudo-words plus some real ones, so that word frequencies are realistic. */
export function vocabulary(size: number): string[] {
  let seed = 7;
  // mulberry32: a small deterministic generator in 32-bit integer arithmetic.
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ra',
    'su',
    'to',
    'vi',
    'be',
    'do',
    'fa',
    'gu',
    'ha',
    'ji',
    'pe',
    'qu',
    'sto',
    'ber',
    'lin',
    'mar',
  ];
  const real = [
    'meeting',
    'deadline',
    'project',
    'birthday',
    'dentist',
    'climbing',
    'coffee',
    'invoice',
    'holiday',
    'garden',
    'report',
    'flight',
  ];
  const words = new Set(real);
  while (words.size < size) {
    const parts = 2 + Math.floor(next() * 3);
    let word = '';
    for (let i = 0; i < parts; i++) word += syllables[Math.floor(next() * syllables.length)];
    words.add(word);
  }
  return [...words];
}

export const FIRST = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Eva',
  'Felix',
  'Greta',
  'Hugo',
  'Ida',
  'Jonas',
  'Karin',
  'Lukas',
  'Mia',
  'Noah',
  'Olga',
  'Paul',
];
const LAST = [
  'Bauer',
  'Fischer',
  'Gruber',
  'Hofer',
  'Huber',
  'Koch',
  'Lang',
  'Maier',
  'Novak',
  'Pichler',
  'Schmid',
  'Wagner',
  'Weber',
  'Wolf',
];

/** Loads each user's memories (a user id and how many), with random unit embeddings of `dimensions` when not 0. */
export async function load(client: PoolClient, users: [string, number][], words: string[], dimensions = 0) {
  const people = FIRST.flatMap((first) => LAST.map((last) => `${first} ${last}`));
  await client.query('DROP TABLE IF EXISTS pg_temp.bench_words');
  await client.query(
    `CREATE TEMP TABLE bench_words AS SELECT n::int AS id, word FROM unnest($1::text[]) WITH ORDINALITY AS t(word, n)`,
    [words],
  );
  await client.query('ALTER TABLE bench_words ADD PRIMARY KEY (id)');
  // The secondary indexes are dropped and made again after the insert (a bulk build is many times faster than
  // inserting row by row into GIN indexes without a pending list); their definitions are the schema's own.
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i WHERE i.indrelid = 'assistant.memories'::regclass AND NOT i.indisprimary AND NOT i.indisunique`,
  );
  for (const { name } of indexes) await client.query(`DROP INDEX ${name}`);
  for (const [userId, count] of users) {
    await client.query('SELECT setseed(0.42)');
    await insertMemories(client, userId, count, people, words.length, dimensions);
  }
  await client.query(`SET maintenance_work_mem = '256MB'`);
  for (const { definition } of indexes) await client.query(definition);
  await client.query('RESET maintenance_work_mem');
  await client.query('VACUUM ANALYZE assistant.memories');
}

/** One statement: 8–16 skewed word picks per memory, a person in 30% of rows, spread over the last two years. */
async function insertMemories(
  client: PoolClient,
  userId: string,
  count: number,
  people: string[],
  wordCount: number,
  dimensions: number,
) {
  await client.query(
    `WITH raw AS (
       SELECT g,
              (SELECT string_agg(w.word, ' ')
                 FROM (SELECT 1 + floor(power(random(), 2) * $4::int)::int AS id FROM generate_series(1, 8 + (g % 9))) AS picks
                 JOIN bench_words w USING (id)) AS words,
              CASE WHEN random() < 0.3 THEN ($2::text[])[1 + floor(random() * $5::int)::int] END AS person,
              CASE WHEN $6::int > 0 THEN ARRAY(SELECT random() - 0.5 + 0 * g FROM generate_series(1, $6::int)) END AS v
         FROM generate_series(1, $3::int) AS g
     )
     INSERT INTO assistant.memories (user_id, content, kind, importance, tags, people, entities, name_keys, names, source, language, search_vector, created_at, updated_at, embedding, embedding_model)
     SELECT $1, concat_ws(' ', person, words), 'fact', 1 + g % 5, '{}',
            coalesce(ARRAY[person], '{}'), '{}', coalesce(ARRAY[lower(person)], '{}'), coalesce(person, ''), 'bench', 'english',
            setweight(to_tsvector('english', concat_ws(' ', person, words)), 'A') || setweight(to_tsvector('english', coalesce(person, '')), 'B'),
            now() - (g % 17520) * interval '1 hour', now(),
            CASE WHEN v IS NOT NULL THEN ARRAY(SELECT x / sqrt((SELECT sum(y * y) FROM unnest(v) AS y)) FROM unnest(v) AS x)::real[] END,
            CASE WHEN v IS NOT NULL THEN '${BENCH_MODEL}' END
       FROM raw`,
    [userId, people, count, wordCount, people.length, dimensions],
  );
}

/** A text option's value (`--name value`), or undefined when not given. */
export function textArgument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return undefined;
  const value = process.argv[index + 1];
  if (!value || value.startsWith('--')) throw new Error(`--${name}: expected a value`);
  return value;
}

/** How many memories the user has: a kept cluster (--data-dir) is loaded once, then reused. */
export async function loadedCount(client: PoolClient, userId: string): Promise<number> {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1', [userId]);
  return rows[0].n;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

type RecallRun = (client: PoolClient, userId: string, query: string) => Promise<{ id: number | string }[]>;

/** recall() as the node runs it. */
const currentRecall: RecallRun = (client, userId, query) => recall(client, userId, query, { limit: 10 });

/** For comparison: the same round trips with the query as it was before migration 32 (every rare match fetched). */
const recallBefore: RecallRun = async (client, userId, query) => {
  const { language } = await getUserSettings(client, userId);
  const terms = await searchTerms(client, language, query);
  if (!terms.tsquery && terms.names.length === 0) return [];
  const sql = recallSqlBefore({ withText: terms.tsquery !== null, withKind: false, terms, semantic: 'none' });
  return (await client.query(sql, recallParametersBefore(userId, terms, 10, 30))).rows;
};

/** How alike two paths' answers are: queries with the same memories (in any order), and the share of shared ones. */
function agreement(a: { ids: string[] }[], b: { ids: string[] }[]): { same: number; shared: number } {
  let same = 0;
  let shared = 0;
  let total = 0;
  a.forEach(({ ids }, i) => {
    const other = new Set(b[i].ids);
    const common = ids.filter((id) => other.has(id)).length;
    if (common === ids.length && ids.length === other.size) same++;
    shared += common;
    total += Math.max(ids.length, other.size);
  });
  return { same, shared: total === 0 ? 1 : shared / total };
}

/** Times each path on each query, alternating which goes first, so machine load hits all paths alike. */
async function timeQueries(
  client: PoolClient,
  userId: string,
  queries: string[],
  runs: RecallRun[],
): Promise<{ times: number[]; hits: number[]; ids: string[][] }[]> {
  const results = runs.map(() => ({ times: [] as number[], hits: [] as number[], ids: [] as string[][] }));
  for (const [index, query] of queries.entries()) {
    const order = runs.map((_, i) => i);
    if (index % 2 === 1) order.reverse();
    for (const i of order) {
      const start = process.hrtime.bigint();
      const found = await runs[i](client, userId, query);
      results[i].times.push(Number(process.hrtime.bigint() - start) / 1e6);
      results[i].hits.push(found.length);
      results[i].ids.push(found.map((row) => String(row.id)));
    }
  }
  return results;
}

const QUERY_KINDS = ['first name', 'full name', 'one word', 'three words', 'chatty question'];

/** A benchmark's own embedded Postgres 17 and a pool on it; stopped on Ctrl-C or a timeout, and by `stop`. */
export async function startBenchDatabase(
  database: string,
  dataDir?: string,
): Promise<{ pool: Pool; stop(): Promise<void> }> {
  const server = await startPostgres({ database, ...(dataDir ? { dataDir } : {}) });
  // Interrupted (Ctrl-C, timeout): stop the database before leaving.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void server.stop().finally(() => process.exit(130)));
  }
  const pool = new Pool({ connectionString: server.url, max: 2 });
  pool.on('error', () => undefined);
  return {
    pool,
    async stop() {
      await pool.end();
      await server.stop();
    },
  };
}

async function main() {
  const count = argument('memories', 100_000);
  const queryCount = argument('queries', 200);
  const write = process.argv.includes('--write');
  const dataDir = textArgument('data-dir');
  const database = await startBenchDatabase('bench_recall', dataDir);
  const { pool } = database;
  try {
    await runMigrations(pool);
    const { userId } = await resolveIdentity(pool, 'api', 'bench-user');
    const other = await resolveIdentity(pool, 'api', 'other-user');
    const words = vocabulary(5000);
    const client = await pool.connect();
    try {
      const loadStart = Date.now();
      const reused = (await loadedCount(client, userId)) === count;
      if (!reused) {
        await client.query('DELETE FROM assistant.memories');
        const users: [string, number][] = [
          [userId, count],
          [other.userId, Math.round(count / 10)],
        ];
        await load(client, users, words);
      } else {
        // Kept data: the visibility map and statistics as after a load (a migration may have rewritten the table).
        await client.query('VACUUM ANALYZE assistant.memories');
      }
      const loadSeconds = (Date.now() - loadStart) / 1000;
      if (process.argv.includes('--load-only')) {
        console.log(
          `${reused ? 'already loaded' : `loaded in ${loadSeconds.toFixed(1)} s`} (${dataDir ?? 'temporary'})`,
        );
        return;
      }
      // The query mix: a first name, a full name, 1–3 words of varying frequency, and a chatty question.
      const queries: string[] = [];
      for (let i = 0; i < queryCount; i++) {
        const word = (rank: number) => words[(rank * 7919 + i * 104_729) % words.length];
        const kind = i % 5;
        if (kind === 0) queries.push(FIRST[i % FIRST.length]);
        else if (kind === 1) queries.push(`${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}`);
        else if (kind === 2) queries.push(word(i));
        else if (kind === 3) queries.push(`${word(i)} ${word(i + 1)} ${word(i + 2)}`);
        else queries.push(`What did ${FIRST[(i * 3) % FIRST.length]} say about the ${words[i % 12]}?`);
      }
      await timeQueries(client, userId, queries.slice(0, 20), [currentRecall, recallBefore]); // warm-up
      const loadBefore = loadavg()[0];
      const [current, before] = await timeQueries(client, userId, queries, [currentRecall, recallBefore]);
      const scans = process.argv.includes('--scans');
      await client.query('SET enable_bitmapscan = off; SET enable_indexscan = off');
      const [scanned] = scans
        ? await timeQueries(client, userId, queries.slice(0, Math.min(queryCount, 40)), [currentRecall])
        : [undefined];
      await client.query('RESET enable_bitmapscan; RESET enable_indexscan');
      const loadAfter = loadavg()[0];
      const alike = agreement(
        current.ids.map((ids) => ({ ids })),
        before.ids.map((ids) => ({ ids })),
      );

      const sample = 'What did Stefan say about the project deadline?';
      const terms = await searchTerms(client, 'english', sample);
      const plan = await client.query(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY ON) ${recallSql({ withText: true, withKind: false, terms, semantic: 'none' })}`,
        recallParameters(userId, terms, 10, 30),
      );
      const planText = plan.rows.map((row) => row['QUERY PLAN'] as string).join('\n');

      const fmt = (n: number) => n.toFixed(2);
      const sortedCurrent = [...current.times].sort((a, b) => a - b);
      const sortedBefore = [...before.times].sort((a, b) => a - b);
      const byKind = (times: number[], kind: number) => times.filter((_, i) => i % 5 === kind).sort((a, b) => a - b);
      const kindRows = QUERY_KINDS.map((name, kind) => {
        const now = byKind(current.times, kind);
        const then = byKind(before.times, kind);
        return `| ${name} | ${fmt(percentile(now, 50))} | ${fmt(percentile(now, 95))} | ${fmt(percentile(then, 50))} | ${fmt(percentile(then, 95))} |`;
      });
      const row = (label: string, sorted: number[]) =>
        `| ${label} | ${fmt(percentile(sorted, 50))} | ${fmt(percentile(sorted, 95))} | ${fmt(sorted.at(-1)!)} | ${(percentile(sorted, 95) / percentile(sortedCurrent, 95)).toFixed(2)}× |`;
      const sortedScanned = scanned ? [...scanned.times].sort((a, b) => a - b) : undefined;
      const medianHits = [...current.hits].sort((a, b) => a - b)[Math.floor(current.hits.length / 2)];
      // Issue 34's goals: p95 ≤ 20 ms at 100k memories, ≤ 50 ms at 1M.
      const goal = count <= 100_000 ? 20 : 50;
      const matched = await client.query(
        `SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1 AND (search_vector @@ $2::tsquery OR (names <> '' AND names %> ANY($3::text[])))`,
        [userId, terms.tsquery, terms.names],
      );
      const report = [
        SECTION,
        '',
        '`node_modules/.bin/tsx scripts/bench-recall.ts --write` — one run, side by side, on ' +
          `${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, Postgres 17 (embedded, fsync off).`,
        `${count.toLocaleString('en')} memories for one user (plus ${Math.round(count / 10).toLocaleString('en')} for another), ` +
          `8–16 words each from a 5,000-word skewed vocabulary, a person named in 30%; ` +
          (reused
            ? `loaded earlier into the kept cluster (--data-dir).`
            : `loaded in one INSERT … SELECT in ${loadSeconds.toFixed(1)} s.`),
        `Each timing is a whole \`recall()\` call as the Assistant Memory node runs it (settings, search terms, the ranked query; 3 round trips),`,
        `limit 10, over ${queryCount} queries (first names, full names, 1 and 3 words, chatty questions) after 20 warm-up; the paths alternate`,
        `query by query. Machine load (1-minute average) ${loadBefore.toFixed(2)} before and ${loadAfter.toFixed(2)} after the timed part (other work was running).`,
        '',
        '| path | p50 ms | p95 ms | max ms | p95 over recall |',
        '| --- | ---: | ---: | ---: | ---: |',
        row('recall (rare words newest first by the dated-words index)', sortedCurrent),
        row('the query before migration 32 (every rare match fetched)', sortedBefore),
        ...(sortedScanned
          ? [row(`recall, index scans disabled (first ${sortedScanned.length} queries)`, sortedScanned)]
          : []),
        '',
        `Goal p95 ≤ ${goal} ms: ${percentile(sortedCurrent, 95) <= goal ? 'met' : 'NOT met'} in this run. Median results per query: ${medianHits} (limit 10).`,
        `Same memories as before (any order): ${alike.same} of ${queries.length} queries; ${(alike.shared * 100).toFixed(1)}% of the returned memories shared.`,
        '',
        'By query kind (ms):',
        '',
        '| query kind | recall p50 | recall p95 | before p50 | before p95 |',
        '| --- | ---: | ---: | ---: | ---: |',
        ...kindRows,
        '',
        `Plan of the ranked query for "${sample}" (${matched.rows[0].n.toLocaleString('en')} rows match one of its words or names):`,
        '',
        '```',
        planText,
        '```',
        '',
        `Run at ${new Date().toISOString()}.`,
        '',
      ].join('\n');
      console.log(report);
      if (write) writeSection(report);
    } finally {
      client.release();
    }
  } finally {
    await database.stop();
  }
}

/** Replaces this benchmark's section of docs/BENCHMARKS.md (or appends it), leaving the other sections alone. */
function writeSection(report: string) {
  const file = path.join(__dirname, '..', 'docs', 'BENCHMARKS.md');
  const current = readFileSync(file, 'utf8');
  const start = current.indexOf(SECTION);
  if (start === -1) {
    writeFileSync(file, `${current.trimEnd()}\n\n${report}`);
    return;
  }
  const next = current.indexOf('\n## ', start + SECTION.length);
  const rest = next === -1 ? '' : current.slice(next + 1);
  writeFileSync(file, `${current.slice(0, start)}${report}${rest ? `\n${rest}` : ''}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
