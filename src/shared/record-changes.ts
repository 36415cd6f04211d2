// Decisions: docs/decisions/0117-read-cache-with-a-front-door.md
/**
 * What a notification on the record changes channel (`kura_livestreams_changed`) says changed, by
 * its payload (migration 0033): '' records, their totals and their submitters; 'search' the search
 * documents; 'follows' the follows; 'moments' a record's moments (migration 0039: their records' search
 * documents are out of date; no cached answer shows them).
 */
export type ChangeKind = 'records' | 'search' | 'follows' | 'moments';

/** The kind a payload names; `anything` when it names none this release knows, or when there is none (the feed connected again or was lost). */
export function changeKindOf(payload: string | undefined): ChangeKind | 'anything' {
  if (payload === '') return 'records';
  if (payload === 'search' || payload === 'follows' || payload === 'moments') return payload;
  return 'anything';
}
