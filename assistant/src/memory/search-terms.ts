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
  /** The lexemes whose every match is a candidate. */
  rare: string[];
  /** The common lexemes (see COMMON_LEXEME_FREQUENCY): their matches are capped, newest first. */
  common: string[];
  /** The names whose words are common lexemes: their matches are capped too (the others' are all candidates). */
  commonNames: string[];
}

const MAX_TERMS = 12;

/**
 * A lexeme is "common" when Postgres' own statistics on search_vector (kept by ANALYZE) put it in more than
 * sqrt(COMMON_CANDIDATES / rows) of all memories, and at least this share. Reading the newest rows until
 * COMMON_CANDIDATES match then costs fewer rows than fetching every match (e.g. above 5.5% at 100k rows).
 * A common lexeme still counts in the score, but only its newest matches become candidates.
 */
export const COMMON_LEXEME_FREQUENCY = 0.01;

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
  const [result, common] = await Promise.all([
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
    commonLexemes(db),
  ]);
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
    common: lexemes.filter((lexeme) => common.has(lexeme)),
    commonNames: names.filter((_, i) => (nameLexemes[i] ?? '').split(' ').every((lexeme) => common.has(lexeme))),
  };
}

/** How long the common-lexeme list is reused; the statistics behind it change only when ANALYZE runs. */
const COMMON_LEXEMES_TTL_MS = 60_000;
const commonLexemesCache = new WeakMap<Queryable, { at: number; lexemes: Promise<Set<string>> }>();

/**
 * The common lexemes of the whole memories table (no user data: Postgres' statistics), read from pg_stats and
 * reused for a minute per connection pool.
 */
export function commonLexemes(db: Queryable): Promise<Set<string>> {
  const cached = commonLexemesCache.get(db);
  if (cached && Date.now() - cached.at < COMMON_LEXEMES_TTL_MS) return cached.lexemes;
  const lexemes = db
    .query<{ e: string }>(
      `SELECT f.e FROM pg_stats s JOIN pg_class c ON c.oid = 'assistant.memories'::regclass,
              unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS f(e, freq)
        WHERE s.schemaname = 'assistant' AND s.tablename = 'memories' AND s.attname = 'search_vector'
          AND f.e IS NOT NULL AND f.freq > greatest($1::float8, sqrt($2::float8 / greatest(c.reltuples, 1)))`,
      [COMMON_LEXEME_FREQUENCY, COMMON_CANDIDATES],
    )
    .then((result) => new Set(result.rows.map((row) => row.e)));
  commonLexemesCache.set(db, { at: Date.now(), lexemes });
  lexemes.catch(() => commonLexemesCache.delete(db));
  return lexemes;
}

/** Forgets the cached common lexemes (after ANALYZE, in tests and benchmarks). */
export function forgetCommonLexemes(db: Queryable): void {
  commonLexemesCache.delete(db);
}
