import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeEndReason } from '../../src/core/capture/capture.js';

// The archive page says why a capture ended in the page's language, from the catalogue's
// archive_end_{reason} (the API's endNote is English): in English it must read as the API's words.
const english = JSON.parse(readFileSync(new URL('../../web/messages/en.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const endNotes = Object.entries(english).filter(([key]) => key.startsWith('archive_end_'));

describe('why a capture ended, as the archive page says it', () => {
  it('reads in English as the API’s endNote, for every reason the catalogue knows', () => {
    expect(endNotes.length).toBeGreaterThanOrEqual(13);
    for (const [key, text] of endNotes) expect(text, key).toBe(describeEndReason(key.slice('archive_end_'.length)));
  });
});
