// A check run's fetch: what the check watches, as a snapshot, through the outbound guard (pages through read_page,
// rendered when they need JavaScript; feeds and JSON fetched with the same limits; searches through web_search),
// then compared with the stored state. Any failure becomes the run's error, in a sentence.
import type { Pool } from 'pg';
import { DOMParser } from 'linkedom';
import { FieldError } from '../errors';
import type { OutboundGuard } from '../outbound';
import { BodyTooLargeError, readBodyWithLimit } from '../outbound/body';
import { MAX_MAX_CHARS, type PageReader } from '../web/read-page';
import type { WebSearch } from '../web/search-types';
import { MAX_RESULTS_LIMIT } from '../web/search';
import { absoluteHttpUrl } from '../web/urls';
import { compareSnapshot, numericValue, type Snapshot, type WatchedItem } from './compare';
import { valueAtPath } from './json-path';
import { loadCheckRun, recordObservation, type CheckToRun, type Observation, type ObservedRun } from './runs';

export interface CheckObserverOptions {
  guard: OutboundGuard;
  reader: PageReader;
  search: WebSearch;
  /** The largest feed or JSON body read; 10 MB by default. */
  maxBytes?: number;
  /** The time limit of one fetch; 20 s by default. */
  timeoutMs?: number;
}

export interface CheckObserver {
  observe(check: CheckToRun): Promise<Observation>;
}

class CheckFetchError extends Error {}

const reasonOf = (error: unknown): string =>
  error instanceof FieldError ? error.reason : error instanceof Error ? error.message : String(error);

export function createCheckObserver(options: CheckObserverOptions): CheckObserver {
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;

  async function fetchText(url: string, accept: string): Promise<{ text: string; contentType: string }> {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await options.guard.fetch(url, { signal, headers: { accept } });
    } catch (error) {
      if (signal.aborted) throw new CheckFetchError(`${url} did not answer within ${timeoutMs / 1000} s`);
      throw error;
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new CheckFetchError(
        `${response.url || url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      );
    }
    try {
      const bytes = await readBodyWithLimit(response, maxBytes);
      const contentType = response.headers.get('content-type') ?? '';
      return { text: decodeBody(bytes, contentType), contentType };
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new CheckFetchError(`${url} is too large: ${error.message}`);
      if (signal.aborted) throw new CheckFetchError(`${url} did not answer within ${timeoutMs / 1000} s`);
      throw new CheckFetchError(`${url} could not be read: ${reasonOf(error)}`);
    }
  }

  async function snapshotOf(check: CheckToRun): Promise<Snapshot> {
    switch (check.kind) {
      case 'page': {
        const page = await options.reader.read({
          url: check.target,
          selector: check.selector ?? undefined,
          fresh: true,
          maxChars: MAX_MAX_CHARS,
        });
        // Compare the whole of what was read, without the reader's "more characters not shown" note.
        const text = page.truncated ? page.content.slice(0, MAX_MAX_CHARS) : page.content;
        return { kind: 'page', text, title: page.title };
      }
      case 'feed': {
        const { text } = await fetchText(
          check.target,
          'application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5',
        );
        return { kind: 'feed', items: parseFeed(text, check.target) };
      }
      case 'search': {
        const answer = await options.search.search({ query: check.target, maxResults: MAX_RESULTS_LIMIT });
        return {
          kind: 'search',
          items: answer.results.map((result) => ({ id: result.url, title: result.title, url: result.url })),
        };
      }
      case 'json': {
        const { text } = await fetchText(check.target, 'application/json');
        let document: unknown;
        try {
          document = JSON.parse(text);
        } catch {
          throw new CheckFetchError(`${check.target} did not answer with JSON`);
        }
        const found = valueAtPath(document, check.path as string);
        if (!found.found) throw new CheckFetchError(`the JSON at ${check.target} has no value at ${found.at}`);
        if (check.condition !== 'changed' && numericValue(found.value) === null) {
          throw new CheckFetchError(
            `${check.path} at ${check.target} is ${JSON.stringify(found.value)}, not a number to compare with ${check.threshold}`,
          );
        }
        return { kind: 'json', value: found.value };
      }
    }
  }

  return {
    async observe(check: CheckToRun): Promise<Observation> {
      try {
        const snapshot = await snapshotOf(check);
        const { state, delta } = compareSnapshot(snapshot, check.state, check);
        return { ok: true, state, delta };
      } catch (error) {
        return { ok: false, error: reasonOf(error) };
      }
    },
  };
}

/** A body's text in the charset its Content-Type or (XML) its declaration names; UTF-8 otherwise. */
function decodeBody(bytes: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /^\s*<\?xml[^>]*encoding=["']([\w.:-]+)["']/i.exec(bytes.subarray(0, 200).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** The items of an RSS (0.9x, 1.0, 2.0) or Atom feed, newest first as the feed lists them. */
export function parseFeed(xml: string, feedUrl: string): WatchedItem[] {
  const document = new DOMParser().parseFromString(xml.replace(/^\uFEFF/, ''), 'text/xml');
  // linkedom keeps the prefix (`rdf:RDF` for RSS 1.0).
  const root = document.documentElement?.localName?.toLowerCase().replace(/^.*:/, '');
  if (root !== 'rss' && root !== 'feed' && root !== 'rdf') {
    throw new CheckFetchError(`${feedUrl} is not an RSS or Atom feed`);
  }
  const text = (node: { textContent: string | null } | null | undefined) =>
    (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
  return [...document.querySelectorAll('item, entry')]
    .map((entry) => {
      // Atom lists several links (replies, edit, self): the entry's own page is rel="alternate" or has no rel.
      const links = [...entry.querySelectorAll('link')];
      const link = links.find((node) => ['', 'alternate'].includes(node.getAttribute('rel') ?? '')) ?? links[0];
      const href = link?.getAttribute('href') || text(link);
      const url = href ? (absoluteHttpUrl(href, feedUrl) ?? null) : null;
      const title = text(entry.querySelector('title'));
      const id = text(entry.querySelector('guid, id')) || url || title;
      return { id, title, url };
    })
    .filter((item) => item.id !== '');
}

/** One scheduled run: load the check, observe, record. The workflow then finishes it (with the Judge if gated). */
export async function runCheck(pool: Pool, observer: CheckObserver, runId: unknown, now: Date): Promise<ObservedRun> {
  const check = await loadCheckRun(pool, runId);
  const observation = await observer.observe(check);
  return await recordObservation(pool, check, observation, now);
}
