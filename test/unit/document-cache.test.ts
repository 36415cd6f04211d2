import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../src/adapters/search/document-cache.js';

describe('the document cache', () => {
  it('keeps the most recently used texts that fit its budget of characters', () => {
    const cache = new DocumentCache(10);
    cache.keep(cache.mark(), 'a', 'aaaa');
    cache.keep(cache.mark(), 'b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // a is now the most recently used
    cache.keep(cache.mark(), 'c', 'cccc'); // 12 characters: the least recently used (b) goes
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['aaaa', undefined, 'cccc']);
    cache.keep(cache.mark(), 'd', 'd'.repeat(11)); // longer than the whole budget: not kept, nothing evicted
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual(['aaaa', 'cccc', undefined]);
  });

  it('refuses a text read before a change was applied, and forgets the documents that changed', () => {
    const cache = new DocumentCache(100);
    cache.keep(cache.mark(), 'a', 'old a');
    const mark = cache.mark();
    cache.forget(['a']);
    cache.keep(mark, 'b', 'b read before the change');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, undefined]);
    cache.keep(cache.mark(), 'b', 'b');
    cache.forget(null);
    expect(cache.get('b')).toBeUndefined();
  });
});
