// Decisions: docs/decisions/0047-search-outbox.md, docs/decisions/0131-moments-searched.md
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { MomentText, MomentTexts, RejectedDocument, SearchDocument, SearchIndex, SearchOutbox } from './search.js';

export interface SearchSyncDeps {
  outbox: SearchOutbox;
  livestreams: Pick<LivestreamRepo, 'findManyById'>;
  /** The moments marked in records, which their documents carry and searches find. */
  moments: MomentTexts;
  index: SearchIndex;
  /** The record as the index holds it (the API's record shape, built outside core), with its moments. */
  document: (livestream: Livestream, moments: readonly MomentText[]) => SearchDocument;
  /** Told of the documents the engine refused, marked to be indexed again (see SearchOutbox.drain). */
  onRejected?: (rejected: readonly RejectedDocument[]) => void;
}

/** Changes taken from the outbox at once. */
const BATCH = 1000;

/**
 * Brings the search index up to date with the records: every change queued in the outbox is
 * applied (the record as it is now, or its removal when it is gone), oldest first, until none is
 * left. Resolves with the ids applied; those the engine refused are marked to be indexed again
 * and told to `onRejected`. Rejects with the engine's error; the changes stay queued.
 */
export async function syncSearchIndex(deps: SearchSyncDeps): Promise<string[]> {
  const applied: string[] = [];
  for (;;) {
    const taken = await deps.outbox.drain(BATCH, async (ids) => {
      const [records, moments] = await Promise.all([deps.livestreams.findManyById(ids), deps.moments.textsOf(ids)]);
      const present = new Set(records.map((r) => r.id));
      const rejected = await deps.index.upsert(records.map((record) => deps.document(record, moments.get(record.id) ?? [])));
      await deps.index.remove(ids.filter((id) => !present.has(id)));
      if (rejected.length > 0) deps.onRejected?.(rejected);
      const refused = new Set(rejected.map((r) => r.id));
      applied.push(...ids.filter((id) => !refused.has(id)));
      return rejected;
    });
    if (taken === 0) return applied;
  }
}

/** Rebuilds the index from scratch: empties it, queues every record and applies them. Resolves with the count. */
export async function reindexSearch(deps: SearchSyncDeps): Promise<number> {
  await deps.index.prepare();
  const queued = await deps.outbox.queueAll(() => deps.index.clear());
  await syncSearchIndex(deps);
  return queued;
}
