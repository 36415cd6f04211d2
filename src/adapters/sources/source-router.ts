import { AppError } from '../../core/errors.js';
import type { StreamSource } from '../../core/sources/ports.js';

const NONE =
  'Kura records YouTube livestreams, HLS playlists (an http(s) URL ending in .m3u8) and the live streams of the sites yt-dlp opens (Twitch, TwitCasting, …).';

/** One StreamSource over several: each URL goes to the first source that recognises its form. */
export function routeSources(sources: readonly StreamSource[]): StreamSource {
  const sourceOf = (url: string) => sources.find((source) => source.recognises(url)) ?? null;
  return {
    recognises: (url) => sourceOf(url) !== null,
    async inspect(url) {
      return sourceOf(url)?.inspect(url) ?? { kind: 'rejected', reason: NONE };
    },
    async qualities(url) {
      const source = sourceOf(url);
      if (source === null) throw new AppError('invalid', 'invalid_source', NONE);
      return source.qualities(url);
    },
    async check(sourceUrl, quality, options) {
      return sourceOf(sourceUrl)?.check(sourceUrl, quality, options) ?? { state: 'refused', reason: NONE };
    },
  };
}
