import { createFetcher, type Fetcher } from '../adapters/sources/http-fetch.js';
import { createHlsSource } from '../adapters/sources/hls-source.js';
import { routeSources } from '../adapters/sources/source-router.js';
import { createYouTubeSource, createYtDlp } from '../adapters/sources/youtube-source.js';
import type { Config } from '../config.js';
import type { StreamSource } from '../core/sources/ports.js';

/** A source's thumbnail image larger than this is not kept (YouTube's largest are ~200 KB). */
const MAX_THUMBNAIL_BYTES = 10 * 1024 * 1024;

/** The one way out to the URLs people give Kura, built once per process and shared by api and worker. */
export interface Sources {
  /** The SSRF-safe fetcher every outbound request goes through. */
  fetcher: Fetcher;
  /** Every source Kura records from: YouTube (through yt-dlp) and HLS playlists. */
  source: StreamSource;
  /** Fetches a source's own thumbnail image, up to a size. */
  fetchImage(url: string): Promise<Buffer>;
}

/** Builds the fetcher (`fetcher` replaces it, for tests) and the sources on it. */
export function createSources(
  config: Pick<Config, 'allowPrivateSources' | 'ytdlpPath'>,
  fetcher: Fetcher = createFetcher({ allowPrivate: config.allowPrivateSources }),
): Sources {
  return {
    fetcher,
    source: routeSources([createYouTubeSource(createYtDlp(config.ytdlpPath)), createHlsSource(fetcher)]),
    fetchImage: (url) => fetcher.bytes(url, { maxBytes: MAX_THUMBNAIL_BYTES }),
  };
}
