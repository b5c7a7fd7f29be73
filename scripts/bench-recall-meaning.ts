// Benchmark: recall by meaning for one user, on the data of scripts/bench-recall.ts plus a random unit embedding per
// memory, on the embedded Postgres 17 (no pgvector: sign bits' Hamming distance over every embedding, then the
// candidates' exact cosine) or on PGlite (Postgres 17 in
// WebAssembly) with its pgvector HNSW index enabled after the load, as at install.
//   node_modules/.bin/tsx scripts/bench-recall-meaning.ts [--engine postgres|pglite] [--memories 100000]
//     [--queries 60] [--dimensions 256] [--data-dir DIR (postgres: a kept cluster, loaded once and reused)]
// Each query's vector is a stored memory's, picked at random over every age, so that memory must come back (found
// rate); its text is stop words only (MEANING_ONLY), so only its embedding can find it. Words-only recall
// (the mix of scripts/bench-recall.ts) is timed alongside on the same data. The embeddings endpoint is not timed: an in-process embedder
// hands recall() the stored vector; everything else is the whole recall() the Assistant Memory node runs. PGlite's
// times are WebAssembly's on one connection, not comparable with a native server's.
import { cpus, loadavg } from 'node:os';
import { Pool, type PoolClient } from 'pg';
import { enableVectorIndex, type Embedder, recall, resolveIdentity, runMigrations } from '../assistant/src';
import { startPgliteDatabase } from '../assistant/test/pglite-server';
import {
  argument,
  BENCH_MODEL,
  FIRST,
  load,
  loadedCount,
  percentile,
  startBenchDatabase,
  textArgument,
  vocabulary,
} from './bench-recall';

type Engine = 'postgres' | 'pglite';

/** Stop words only: no lexeme and no name, so recall finds by the embedding alone. */
const MEANING_ONLY = 'What was that about?';

interface Database {
  pool: Pool;
  label: string;
  stop(): Promise<void>;
}

async function startDatabase(engine: Engine, dataDir: string | undefined): Promise<Database> {
  if (engine === 'pglite') {
    const db = await startPgliteDatabase();
    return { pool: db.pool, label: 'PGlite 0.4.6 (Postgres 17.5 in WebAssembly), one connection', stop: db.stop };
  }
  const { pool, stop } = await startBenchDatabase('bench_recall_meaning', dataDir);
  await runMigrations(pool);
  return { pool, label: 'Postgres 17 (embedded, no pgvector)', stop };
}

interface Target {
  id: string;
  vector: number[];
  /** How many of the user's memories are newer. */
  newer: number;
}

/** `count` stored memories of the user at random (every age), with their vectors and how many memories are newer. */
async function targets(client: PoolClient, userId: string, count: number): Promise<Target[]> {
  await client.query('SELECT setseed(0.5)');
  const { rows } = await client.query(
    `SELECT t.id, t.embedding,
            (SELECT count(*) FROM assistant.memories n WHERE n.user_id = $1 AND n.created_at > t.created_at)::int AS newer
       FROM (SELECT id, embedding, created_at FROM assistant.memories WHERE user_id = $1 ORDER BY random() LIMIT $2) t`,
    [userId, count],
  );
  return rows.map((row) => ({ id: String(row.id), vector: row.embedding, newer: row.newer }));
}

function queryText(i: number, words: string[]): string {
  const word = (rank: number) => words[(rank * 7919 + i * 104_729) % words.length];
  if (i % 3 === 0) return FIRST[i % FIRST.length];
  if (i % 3 === 1) return `${word(i)} ${word(i + 1)}`;
  return `What did ${FIRST[(i * 3) % FIRST.length]} say about the ${words[i % 12]}?`;
}

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const fmt = (n: number) => n.toFixed(2);

async function main() {
  const engine = (
    process.argv.includes('--engine') ? process.argv[process.argv.indexOf('--engine') + 1] : 'postgres'
  ) as Engine;
  if (engine !== 'postgres' && engine !== 'pglite') throw new Error('--engine: expected postgres or pglite');
  const count = argument('memories', 100_000);
  const queryCount = argument('queries', 60);
  const dimensions = argument('dimensions', 256);
  const dataDir = textArgument('data-dir');
  const db = await startDatabase(engine, engine === 'postgres' ? dataDir : undefined);
  if (engine === 'pglite') {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => void db.stop().finally(() => process.exit(130)));
    }
  }
  try {
    const { userId } = await resolveIdentity(db.pool, 'api', 'bench-user');
    const other = await resolveIdentity(db.pool, 'api', 'other-user');
    const words = vocabulary(5000);
    const client = await db.pool.connect();
    try {
      let start = process.hrtime.bigint();
      const reused = (await loadedCount(client, userId)) === count;
      if (!reused) {
        await client.query('DELETE FROM assistant.memories');
        await load(
          client,
          [
            [userId, count],
            [other.userId, Math.round(count / 10)],
          ],
          words,
          dimensions,
        );
      } else {
        // Kept data: the visibility map and statistics as after a load (a migration may have rewritten the table).
        await client.query('VACUUM ANALYZE assistant.memories');
      }
      const loadSeconds = ms(start) / 1000;
      let indexSeconds: number | null = null;
      if (engine === 'pglite') {
        start = process.hrtime.bigint();
        const index = await enableVectorIndex(client, dimensions);
        if (!index.pgvector) throw new Error(`no pgvector index: ${index.reason}`);
        indexSeconds = ms(start) / 1000;
      }
      const picked = await targets(client, userId, queryCount + 5);
      const semantic: number[] = [];
      const wordsOnly: number[] = [];
      let found = 0;
      let old = 0;
      let oldFound = 0;
      const loadBefore = loadavg()[0];
      for (const [i, target] of picked.entries()) {
        const embedder: Embedder = { model: BENCH_MODEL, embed: async () => [target.vector] };
        const text = queryText(i, words);
        start = process.hrtime.bigint();
        const recalled = await recall(client, userId, MEANING_ONLY, { limit: 10, embedder });
        const semanticMs = ms(start);
        start = process.hrtime.bigint();
        await recall(client, userId, text, { limit: 10 });
        const wordsMs = ms(start);
        if (i < 5) continue; // warm-up
        semantic.push(semanticMs);
        wordsOnly.push(wordsMs);
        const hit = recalled.some((m) => String(m.id) === target.id);
        if (hit) found++;
        if (target.newer >= 200) {
          old++;
          if (hit) oldFound++;
        }
      }
      const loadAfter = loadavg()[0];
      const sortedSemantic = [...semantic].sort((a, b) => a - b);
      const sortedWords = [...wordsOnly].sort((a, b) => a - b);
      const lines = [
        `engine: ${db.label}; ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}`,
        `${count.toLocaleString('en')} memories (+${Math.round(count / 10).toLocaleString('en')} for another user), ${dimensions}-dimension random unit embeddings; ` +
          `${reused ? 'loaded earlier (--data-dir)' : `loaded in ${loadSeconds.toFixed(1)} s`}${indexSeconds === null ? '' : `, pgvector index (column, backfill, HNSW) in ${indexSeconds.toFixed(1)} s`}`,
        `${semantic.length} queries after 5 warm-up; machine load ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after`,
        `recall by meaning alone: p50 ${fmt(percentile(sortedSemantic, 50))} ms, p95 ${fmt(percentile(sortedSemantic, 95))} ms, max ${fmt(sortedSemantic.at(-1)!)} ms`,
        `recall, words only (same queries): p50 ${fmt(percentile(sortedWords, 50))} ms, p95 ${fmt(percentile(sortedWords, 95))} ms, max ${fmt(sortedWords.at(-1)!)} ms`,
        `found the memory whose vector was asked: ${found}/${semantic.length} (older than the 200 newest: ${oldFound}/${old})`,
        `run at ${new Date().toISOString()}`,
      ];
      console.log(lines.join('\n'));
    } finally {
      client.release();
    }
  } finally {
    await db.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
