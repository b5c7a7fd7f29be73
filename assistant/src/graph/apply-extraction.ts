// Applying a capture's extraction: its entities merged into the graph, its relations recorded (single-valued ones
// replacing the old value), its facts stored through the memory write gate; all in one transaction, one batch per
// user at a time. A batch from turns that carried outside content changes nothing in the graph: its facts are stored
// unconfirmed and its entities and relations are returned as held.
import type { Embedder } from '../memory/embeddings';
import { rememberThroughGate, underUserLock, type GateResult } from '../memory/gate';
import type { Memory } from '../memory/model';
import type { Queryable } from '../storage/db';
import { optionalText, requireUserId } from '../validate';
import { resolveEntity, type ResolvedEntity } from './entities';
import { validateExtraction, type ExtractedEntity, type ExtractedRelation } from './extraction';
import { mentions, quotedIn } from './mentions';
import { relate, type RecordedRelation } from './relations';

export interface ApplyExtractionOptions {
  /** When relations start and replaced ones end, and superseded facts stop being current (default: now). */
  now?: Date;
  /** false when the batch's turns carried outside content (default true). */
  confirmed?: boolean;
  /** Embeds facts for the write gate's near-duplicate check, and stores the vectors. */
  embedder?: Embedder;
  /** The text the extraction was made from: a relation or fact whose evidence is not quoted from it is dropped. */
  sourceText?: string;
  /** The memories' source (default "capture"). */
  source?: string;
}

export interface AppliedExtraction {
  entities: ResolvedEntity[];
  relations: RecordedRelation[];
  facts: {
    stored: Memory[];
    duplicates: Array<{ text: string; duplicateOf: NonNullable<GateResult['duplicateOf']> }>;
    superseded: Memory[];
    contradictions: Array<{ memory: Memory; contradicts: NonNullable<GateResult['contradicts']> }>;
    /** Stored, but unconfirmed (from outside content): not recalled until the user confirms them. */
    unconfirmed: Memory[];
  };
  /** Not applied to the graph: the batch carried outside content. */
  held: { entities: ExtractedEntity[]; relations: ExtractedRelation[] };
  /** Dropped: their evidence is not quoted from the source text. */
  unsupported: Array<{ field: string; evidence: string }>;
}

/** Validates the extraction (errors name the field) and applies it; see the top of this file. */
export async function applyExtraction(
  db: Queryable,
  userIdInput: unknown,
  extractionInput: unknown,
  options: ApplyExtractionOptions = {},
): Promise<AppliedExtraction> {
  const userId = requireUserId(userIdInput);
  const extraction = validateExtraction(extractionInput);
  const source = optionalText(options.source, 'source', 200)?.trim() || 'capture';
  const now = options.now ?? new Date();
  const confirmed = options.confirmed ?? true;
  const unsupported: AppliedExtraction['unsupported'] = [];
  const supported = <T extends { evidence: string }>(items: T[], kind: string) =>
    items.filter((item, i) => {
      const ok = options.sourceText === undefined || quotedIn(options.sourceText, item.evidence);
      if (!ok) unsupported.push({ field: `${kind}[${i}].evidence`, evidence: item.evidence });
      return ok;
    });
  const relations = supported(extraction.relations, 'relations');
  const facts = supported(extraction.facts, 'facts');
  return underUserLock(db, userId, async (tx) => {
    const applied: AppliedExtraction = {
      entities: [],
      relations: [],
      facts: { stored: [], duplicates: [], superseded: [], contradictions: [], unconfirmed: [] },
      held: confirmed ? { entities: [], relations: [] } : { entities: extraction.entities, relations },
      unsupported,
    };
    if (confirmed) {
      for (const entity of extraction.entities) applied.entities.push(await resolveEntity(tx, userId, entity));
      for (const relation of relations)
        applied.relations.push(await relate(tx, userId, { ...relation, validFrom: now }, now));
    }
    for (const fact of facts) {
      // The batch's entities the fact names, under the names the graph knows them by.
      const named = extraction.entities
        .map((e, i) => ({ ...e, name: applied.entities[i]?.name ?? e.name, said: [e.name, ...e.aliases] }))
        .filter((e) => e.said.some((name) => mentions(fact.text, name)));
      const result = await rememberThroughGate(
        tx,
        userId,
        {
          content: fact.text,
          subject: fact.subject,
          evidence: fact.evidence,
          source,
          people: named.filter((e) => e.type === 'person').map((e) => e.name),
          entities: named.filter((e) => e.type !== 'person').map((e) => e.name),
        },
        { now, confirmed, embedder: options.embedder },
      );
      record(applied.facts, fact.text, result);
    }
    return applied;
  });
}

function record(facts: AppliedExtraction['facts'], text: string, result: GateResult): void {
  if (result.outcome === 'duplicate') {
    facts.duplicates.push({ text, duplicateOf: result.duplicateOf! });
    return;
  }
  facts.stored.push(result.memory);
  facts.superseded.push(...result.superseded);
  if (result.contradicts) facts.contradictions.push({ memory: result.memory, contradicts: result.contradicts });
  if (!result.memory.confirmed) facts.unconfirmed.push(result.memory);
}
