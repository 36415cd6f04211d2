import { describe, expect, it } from 'vitest';
import { MeiliError } from '../../src/http/search/meili-error.js';
import { MAX_HIGHLIGHT_TAG_LENGTH, parseSearch } from '../../src/http/search/search-request.js';

// What one search may ask of the engine beyond its hits (issue 49): highlight tags repeated on
// every highlighted word of every hit, attribute lists walked for every hit.
function refusal(input: Record<string, unknown>): { status: number; code: string } {
  try {
    parseSearch(input, false);
  } catch (error) {
    if (error instanceof MeiliError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('the search was accepted');
}

describe('the bounds of one search', () => {
  it('refuses a highlight tag longer than 128 characters in Meilisearch format, and takes the tags clients send', () => {
    const long = 'x'.repeat(1024);
    expect(refusal({ q: '', highlightPreTag: long })).toEqual({ status: 400, code: 'invalid_search_highlight_pre_tag' });
    expect(refusal({ q: '', highlightPostTag: 'y'.repeat(MAX_HIGHLIGHT_TAG_LENGTH + 1) })).toEqual({
      status: 400,
      code: 'invalid_search_highlight_post_tag',
    });
    for (const [pre, post] of [
      ['<em>', '</em>'],
      ['__ais-highlight__', '__/ais-highlight__'],
      ['<mark class="ais-Highlight-highlighted">', '</mark>'],
      ['a'.repeat(MAX_HIGHLIGHT_TAG_LENGTH), 'b'],
    ] as const) {
      expect(parseSearch({ q: 'a', highlightPreTag: pre, highlightPostTag: post }, false).request.format.tags).toEqual({ pre, post });
    }
  });

  it('highlights and retrieves each attribute once, and only those a record has, however many are asked', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? 'title' : `field${i}`));
    const parsed = parseSearch({ q: 'a', attributesToHighlight: [...many, '*'], attributesToRetrieve: [...many, 'channelName', 'title'] }, false);
    expect(parsed.request.format.highlight).toEqual(['title', 'channelName', 'moments']);
    expect(parsed.request.format.retrieve).toEqual(['title', 'channelName']);
    // an attribute no record has still asks for _formatted, as Meilisearch answers it
    const unknown = parseSearch({ q: 'a', attributesToHighlight: ['status', 'nothing'] }, false);
    expect({ formatted: unknown.request.format.formatted, highlight: unknown.request.format.highlight }).toEqual({ formatted: true, highlight: [] });
  });
});
