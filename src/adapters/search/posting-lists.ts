import { fieldParts, type WordParts } from './cjk-words.js';
import type { IndexedDocument } from './indexed-document.js';
import type { PostingLists } from './term-matcher.js';

/** Posting lists holding nothing yet. */
export function emptyLists(): PostingLists {
  return { title: new Map(), channel: new Map(), moments: new Map(), titleGrams: new Map(), channelGrams: new Map(), momentGrams: new Map() };
}

/** A document's words and grams by field, and every one of them once (the known words and grams a typo is corrected to). */
export interface DocumentFields {
  title: WordParts;
  channel: WordParts;
  moments: WordParts;
  words: Set<string>;
  grams: Set<string>;
}

export function fieldsOf(document: IndexedDocument): DocumentFields {
  const title = fieldParts(document.titleWords);
  const channel = fieldParts(document.channelWords);
  const moments = fieldParts(document.momentWords);
  return {
    title,
    channel,
    moments,
    words: new Set([...title.words, ...channel.words, ...moments.words]),
    grams: new Set([...title.grams, ...channel.grams, ...moments.grams]),
  };
}

/** Puts `slot` in the lists of each of its fields' words and grams. */
export function postDocument(lists: PostingLists, fields: DocumentFields, slot: number): void {
  const byField = [
    [lists.title, lists.titleGrams, fields.title],
    [lists.channel, lists.channelGrams, fields.channel],
    [lists.moments, lists.momentGrams, fields.moments],
  ] as const;
  for (const [words, grams, parts] of byField) {
    for (const word of parts.words) post(words, word, slot);
    for (const gram of parts.grams) post(grams, gram, slot);
  }
}

function post(lists: Map<string, number[]>, word: string, slot: number): void {
  const list = lists.get(word);
  if (list === undefined) lists.set(word, [slot]);
  else list.push(slot);
}
