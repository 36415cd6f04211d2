import { describe, expect, it } from 'vitest';
import { BUILTIN_SEARCH_RECORDS, engineAdvice } from '../../src/core/search/engine-advice.js';

const archiveOf = (all: number) => ({
  totals: async () => ({ all, finished: all, counted: all, totalFileSizeBytes: 0, totalLengthSeconds: 0, uniqueChannels: 1 }),
});

describe('the search engine advice (kura doctor, the api’s start)', () => {
  it('recommends Meilisearch once the built-in engine holds more records than it is meant for, and says nothing before', async () => {
    expect(await engineAdvice('builtin', archiveOf(BUILTIN_SEARCH_RECORDS))).toBeNull();
    expect(await engineAdvice('builtin', archiveOf(BUILTIN_SEARCH_RECORDS + 1))).toMatch(
      /^the archive holds 1000001 records, past the 1000000 the built-in search engine is meant for: .*run Meilisearch \(KURA_SEARCH=meilisearch/,
    );
  });

  it('says nothing to an instance on Meilisearch or without search, whatever its size', async () => {
    expect(await engineAdvice('meilisearch', archiveOf(10 * BUILTIN_SEARCH_RECORDS))).toBeNull();
    expect(await engineAdvice('off', archiveOf(10 * BUILTIN_SEARCH_RECORDS))).toBeNull();
  });
});
