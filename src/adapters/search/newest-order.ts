import { PLACED_ONE_BY_ONE } from './field-order.js';
import { newestFirst, type IndexedDocument } from './indexed-document.js';

/**
 * Every slot of an index (dead ones too), newest first (then by id, descending): a few new slots
 * are each put in their place at once; many are sorted together at the next read, then each put in
 * its place found by a binary search (the rest is copied, not compared). Also each slot's index in
 * that order, made when asked for.
 */
export class NewestOrder {
  /** The order, up to `sortedUpTo`; the rest are new. */
  private list: number[] = [];
  private sortedUpTo = 0;
  private place = new Int32Array(0);
  private placed = true;

  constructor(private readonly slots: readonly IndexedDocument[]) {}

  /** Puts new slots in the order (by one sort at the next read when there are many, or while some wait). */
  add(fresh: readonly number[]): void {
    if (this.sortedUpTo === this.list.length && fresh.length <= PLACED_ONE_BY_ONE) {
      for (const slot of fresh) this.list.splice(this.placeOf(this.slots[slot] as IndexedDocument, 0, this.list.length), 0, slot);
      this.sortedUpTo = this.list.length;
    } else {
      for (const slot of fresh) this.list.push(slot);
    }
    this.placed = false;
  }

  /** Every slot, newest first. */
  sorted(): readonly number[] {
    const { slots, list, sortedUpTo } = this;
    if (sortedUpTo === list.length) return list;
    const tail = list.slice(sortedUpTo).sort((a, b) => newestFirst(slots[a] as IndexedDocument, slots[b] as IndexedDocument));
    const merged: number[] = [];
    let from = 0;
    for (const slot of tail) {
      const at = this.placeOf(slots[slot] as IndexedDocument, from, sortedUpTo);
      for (let i = from; i < at; i++) merged.push(list[i] as number);
      merged.push(slot);
      from = at;
    }
    for (let i = from; i < sortedUpTo; i++) merged.push(list[i] as number);
    this.list = merged;
    this.sortedUpTo = merged.length;
    this.placed = false;
    return merged;
  }

  /** Each slot's index in the order. */
  places(): Int32Array {
    const list = this.sorted();
    if (this.placed) return this.place;
    if (this.place.length < this.slots.length) this.place = new Int32Array(this.slots.length * 2);
    list.forEach((slot, i) => (this.place[slot] = i));
    this.placed = true;
    return this.place;
  }

  /** Where `document` goes in the sorted part, between `low` and `high` (binary search). */
  private placeOf(document: IndexedDocument, low: number, high: number): number {
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (newestFirst(this.slots[this.list[mid] as number] as IndexedDocument, document) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
