import { hostRefusal } from '../adapters/outbound/address-policy.js';
import { createAddressCheck, type OutboundOptions } from '../adapters/outbound/outbound-client.js';
import { createFetcher, type Fetcher } from '../adapters/sources/http-fetch.js';
import { createHlsSource } from '../adapters/sources/hls-source.js';
import { routeSources } from '../adapters/sources/source-router.js';
import { createSiteSource } from '../adapters/sources/site-source.js';
import { createYouTubeSource, createYtDlp } from '../adapters/sources/youtube-source.js';
import { createSiteYtDlp } from '../adapters/ytdlp/ytdlp-video.js';
import { ytdlpProgram, type YtDlpProgram } from '../adapters/ytdlp/ytdlp-program.js';
import type { Config } from '../config/config.js';
import type { CheckAddresses, StreamSource } from '../core/sources/ports.js';

/** A source's thumbnail image larger than this is not kept (YouTube's largest are ~200 KB). */
const MAX_THUMBNAIL_BYTES = 10 * 1024 * 1024;

/** The one way out to the URLs people give Kura, built once per process and shared by api and worker. */
export interface Sources {
  /** The SSRF-safe fetcher every outbound request goes through. */
  fetcher: Fetcher;
  /** Every source Kura records from: YouTube and the other sites yt-dlp opens (through it), and HLS playlists. */
  source: StreamSource;
  /** Fetches a source's own thumbnail image, up to a size. */
  fetchImage(url: string): Promise<Buffer>;
}

/** Builds the fetcher (`fetcher` replaces it, for tests) and the sources on it. */
export function createSources(
  config: Pick<Config, 'allowPrivateSources' | 'ytdlpPath' | 'ytdlpCookies' | 'systemDir' | 'hlsAudio'>,
  fetcher: Fetcher = createFetcher({ allowPrivate: config.allowPrivateSources }),
): Sources {
  return {
    fetcher,
    // the first source that recognises a URL judges it: any http(s) URL that is neither YouTube's nor a playlist's is yt-dlp's to open
    source: routeSources([
      createYouTubeSource(createYtDlp(ytdlpOf(config)), fetcher),
      createHlsSource(fetcher, config.hlsAudio),
      createSiteSource(createSiteYtDlp(ytdlpOf(config)), { fetcher, checkAddresses: createAddressCheck({ allowPrivate: config.allowPrivateSources }) }),
    ]),
    fetchImage: (url) => fetcher.bytes(url, { maxBytes: MAX_THUMBNAIL_BYTES }),
  };
}

/** The yt-dlp every YouTube look runs (YTDLP_PATH, with KURA_YTDLP_COOKIES). */
export function ytdlpOf(config: Pick<Config, 'ytdlpPath' | 'ytdlpCookies' | 'systemDir'> & Partial<Pick<Config, 'ytdlpChannel'>>): YtDlpProgram {
  return ytdlpProgram(config.ytdlpPath, { cookiesFile: config.ytdlpCookies, systemDir: config.systemDir, channel: config.ytdlpChannel });
}

/** How a URL someone makes Kura connect to again and again (a followed endpoint, a webhook) is judged when it is given. */
export interface TargetChecks {
  /** Why the URL's host may not be a target as written (a private address or name), or null. */
  refuseUrl(url: string): string | null;
  /** Why its host name may not be a target for where it resolves now, or null. */
  checkAddresses: CheckAddresses;
}

/** The outbound address policy at creation (every connection is judged again); `resolve` is the DNS asked (default: the system's). */
export function targetChecks(config: Pick<Config, 'allowPrivateSources'>, resolve?: OutboundOptions['resolve']): TargetChecks {
  return {
    refuseUrl: (url) => (config.allowPrivateSources ? null : hostRefusal(new URL(url).hostname)),
    checkAddresses: createAddressCheck({ allowPrivate: config.allowPrivateSources, ...(resolve ? { resolve } : {}) }),
  };
}
