// What recall searches for, built from the user's query: the OR of its stemmed words in the user's language, the
// words worth comparing with names, and which words are common in the memories table (Postgres' own statistics).
import type { Queryable } from '../storage/db';

export interface SearchTerms {
  /** The OR of the stemmed words, as tsquery text; null when there are none. */
  tsquery: string | null;
  /** Words compared with the people/entities named (trigram word similarity). */
  names: string[];
  /** The stemmed words, one by one (at most MAX_TERMS), for counting how many a memory contains. */
  lexemes: string[];
  /** The lexemes that are not common: every match may be a candidate (those of `dated` newest first). */
  rare: string[];
  /**
   * The rare lexemes in many memories (an estimated DATED_MATCHES or more): read newest first, week by week, through
   * the dated-words index; the other rare lexemes' matches are few and read at once.
   */
  dated: string[];
  /** The common lexemes (see COMMON_LEXEME_FREQUENCY): their matches are capped, newest first. */
  common: string[];
  /**
   * The common lexemes in less than DATED_COMMON_BELOW of all memories: their newest matches are read week by week
   * through the dated-words index; the others' by reading the newest memories until enough match.
   */
  datedCommon: string[];
  /** The names whose words are common lexemes: their matches are capped too (the others' are all candidates). */
  commonNames: string[];
  /**
   * The other names that are also compared by trigram similarity (a misspelt or rare name): those whose words are
   * not frequent lexemes (FREQUENT_LEXEME_FREQUENCY). A name whose word is frequent is found by that word alone.
   */
  fuzzyNames: string[];
}

const MAX_TERMS = 12;

/**
 * A lexeme is "common" when Postgres' own statistics on search_vector (kept by ANALYZE) put it in more than
 * sqrt(COMMON_CANDIDATES / rows) of all memories, and at least this share. Reading the newest rows until
 * COMMON_CANDIDATES match then costs fewer rows than fetching every match (e.g. above 5.5% at 100k rows).
 * A common lexeme still counts in the score, but only its newest matches become candidates.
 */
export const COMMON_LEXEME_FREQUENCY = 0.01;

/**
 * A lexeme in at least this share of all memories (and in Postgres' statistics) is frequent: a name made of such
 * words is found by its words (newest first, any age), not also by trigram similarity, whose index would return
 * every memory naming someone alike (thousands at a million memories), each a table row to read.
 */
export const FREQUENT_LEXEME_FREQUENCY = 0.001;

/**
 * A rare lexeme estimated in at least this many memories is read newest first through the dated-words index (its
 * newest COMMON_CANDIDATES matches, however old); below it, all its matches at once cost less than the index's
 * week-by-week lookups. A lexeme missing from Postgres' statistics is estimated at half the least frequent listed one.
 */
export const DATED_MATCHES = 1_000;

/**
 * A common lexeme below this share is read through the dated-words index too: reading the newest memories until
 * COMMON_CANDIDATES match would read 300 / share of them (15,000 at 2%), more than the rows of the weeks needed.
 */
export const DATED_COMMON_BELOW = 0.05;

/** The newest matches of the common words (and of all of them together) that may become candidates. */
export const COMMON_CANDIDATES = 300;

/** Words of the query that may be names: letters/digits, at least 3 long, lower-cased, at most 12. */
export function nameCandidates(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return [...new Set(words.filter((word) => [...word].length >= 3))].slice(0, 12);
}

/** The user's query as an OR of its stemmed words, or null when it has none (only stop words). */
export async function orQuery(db: Queryable, language: string, text: string): Promise<string | null> {
  return (await searchTerms(db, language, text)).tsquery;
}

/**
 * What recall searches for: the OR tsquery of the stemmed words, the words worth comparing with names (at least
 * 3 letters and not a stop word in the user's language), and which lexemes and names are common (a name is when
 * its word is: people and entities are words of a memory's search vector too). One round trip.
 */
export async function searchTerms(db: Queryable, language: string, text: string): Promise<SearchTerms> {
  const [result, frequencies] = await Promise.all([
    db.query<{ q: string; names: string[]; lexemes: string[]; name_lexemes: string[] }>(
      `SELECT replace(plainto_tsquery($1::regconfig, $2)::text, ' & ', ' | ') AS q,
              tsvector_to_array(to_tsvector($1::regconfig, $2)) AS lexemes,
              coalesce((SELECT array_agg(w ORDER BY i) FROM unnest($3::text[]) WITH ORDINALITY AS t(w, i)
                         WHERE to_tsvector($1::regconfig, w) <> ''::tsvector), '{}') AS names,
              -- each name's lexemes, space-separated, in the order of names
              coalesce((SELECT array_agg(array_to_string(tsvector_to_array(to_tsvector($1::regconfig, w)), ' ') ORDER BY i)
                          FROM unnest($3::text[]) WITH ORDINALITY AS t(w, i)
                         WHERE to_tsvector($1::regconfig, w) <> ''::tsvector), '{}') AS name_lexemes`,
      [language, text, nameCandidates(text)],
    ),
    lexemeFrequencies(db),
  ]);
  const common = commonOf(frequencies);
  const row = result.rows[0];
  const q = row?.q ?? '';
  const lexemes = (row?.lexemes ?? []).slice(0, MAX_TERMS);
  const names = row?.names ?? [];
  const nameLexemes = row?.name_lexemes ?? [];
  return {
    tsquery: q.trim() === '' ? null : q,
    names,
    lexemes,
    rare: lexemes.filter((lexeme) => !common.has(lexeme)),
    dated: lexemes.filter((lexeme) => !common.has(lexeme) && estimatedMatches(frequencies, lexeme) >= DATED_MATCHES),
    common: lexemes.filter((lexeme) => common.has(lexeme)),
    datedCommon: lexemes.filter(
      (lexeme) => common.has(lexeme) && (frequencies.lexemes.get(lexeme) ?? 0) < DATED_COMMON_BELOW,
    ),
    commonNames: names.filter((_, i) => (nameLexemes[i] ?? '').split(' ').every((lexeme) => common.has(lexeme))),
    fuzzyNames: names.filter(
      (_, i) =>
        !(nameLexemes[i] ?? '')
          .split(' ')
          .every((lexeme) => (frequencies.lexemes.get(lexeme) ?? 0) >= FREQUENT_LEXEME_FREQUENCY),
    ),
  };
}

/** How long the lexeme statistics are reused; they change only when ANALYZE runs. */
const COMMON_LEXEMES_TTL_MS = 60_000;

/** The frequent lexemes of the memories table (Postgres' most common elements of search_vector) and its rows. */
interface LexemeFrequencies {
  lexemes: Map<string, number>;
  rows: number;
  /** The share of the least frequent listed lexeme (0 without statistics). */
  least: number;
}
const frequenciesCache = new WeakMap<Queryable, { at: number; frequencies: Promise<LexemeFrequencies> }>();

/**
 * The lexemes Postgres' statistics list for the whole memories table with their share of rows (no user data), read
 * from pg_stats and reused for a minute per connection pool.
 */
function lexemeFrequencies(db: Queryable): Promise<LexemeFrequencies> {
  const cached = frequenciesCache.get(db);
  if (cached && Date.now() - cached.at < COMMON_LEXEMES_TTL_MS) return cached.frequencies;
  const frequencies = db
    .query<{ e: string | null; freq: number | null; rows: number }>(
      `SELECT f.e, f.freq, c.reltuples::float8 AS rows
         FROM pg_class c
         LEFT JOIN pg_stats s ON s.schemaname = 'assistant' AND s.tablename = 'memories' AND s.attname = 'search_vector'
         LEFT JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS f(e, freq) ON true
        WHERE c.oid = 'assistant.memories'::regclass`,
    )
    .then((result) => {
      const listed = result.rows.filter((row) => row.e !== null && row.freq !== null);
      return {
        rows: Math.max(Number(result.rows[0]?.rows ?? 0), 1),
        lexemes: new Map(listed.map((row) => [row.e!, Number(row.freq)])),
        least: listed.length > 0 ? Math.min(...listed.map((row) => Number(row.freq))) : 0,
      };
    });
  frequenciesCache.set(db, { at: Date.now(), frequencies });
  frequencies.catch(() => frequenciesCache.delete(db));
  return frequencies;
}

/** How many memories of the whole table contain a lexeme, by the statistics (see DATED_MATCHES). */
function estimatedMatches({ lexemes, rows, least }: LexemeFrequencies, lexeme: string): number {
  return (lexemes.get(lexeme) ?? least / 2) * rows;
}

/** The common lexemes: in more than sqrt(COMMON_CANDIDATES / rows) of all memories, and at least COMMON_LEXEME_FREQUENCY. */
function commonOf({ lexemes, rows }: LexemeFrequencies): Set<string> {
  const threshold = Math.max(COMMON_LEXEME_FREQUENCY, Math.sqrt(COMMON_CANDIDATES / rows));
  return new Set([...lexemes].filter(([, freq]) => freq > threshold).map(([lexeme]) => lexeme));
}

/** The common lexemes of the whole memories table (see commonOf), from the cached statistics. */
export async function commonLexemes(db: Queryable): Promise<Set<string>> {
  return commonOf(await lexemeFrequencies(db));
}

/** Forgets the cached common lexemes (after ANALYZE, in tests and benchmarks). */
export function forgetCommonLexemes(db: Queryable): void {
  frequenciesCache.delete(db);
}
