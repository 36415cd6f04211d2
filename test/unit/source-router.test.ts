import { describe, expect, it } from 'vitest';
import { routeSources } from '../../src/adapters/sources/source-router.js';
import type { StreamSource } from '../../src/core/sources/ports.js';

/** A source recognising URLs that start with `prefix`, answering each check with the options it was given. */
function sourceFor(prefix: string): StreamSource {
  const unused = async (): Promise<never> => {
    throw new Error('only checked here');
  };
  return {
    recognises: (url) => url.startsWith(prefix),
    inspect: unused,
    qualities: unused,
    check: async (_url, _quality, options) => ({ state: 'not_yet', reason: `${prefix} ${JSON.stringify(options ?? null)}` }),
  };
}

describe('the source router', () => {
  it("hands a check's options to the source whose URL it is (the HLS fallback asks without fragments, a look after an end for the newest)", async () => {
    const router = routeSources([sourceFor('https://www.youtube.com/'), sourceFor('https://')]);
    expect((await router.check('https://www.youtube.com/watch?v=x', null, { fragments: false })).reason).toBe('https://www.youtube.com/ {"fragments":false}');
    expect((await router.check('https://cdn.example/a.m3u8', '720p', { newest: true })).reason).toBe('https:// {"newest":true}');
  });
});
