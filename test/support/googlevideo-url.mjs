// Research: docs/research/youtube-live-contract.md §1.1, §5.1
// The googlevideo base URLs of the fragment STAND-IN (test/support/googlevideo-stand-in.ts), in one
// place for the two that mint them: the stand-in server itself and the yt-dlp STAND-IN
// (test/support/bin/yt-dlp-stand-in.mjs), which lists them in `-J --live-from-start`.
import { createHmac, randomBytes } from 'node:crypto';

/** The `sig` of a base URL: what the stand-in checks, so a changed videoId, itag or expire is refused (403). */
export function googlevideoSig(secret, videoId, itag, expire) {
  return createHmac('sha256', secret).update(`${videoId}.${itag}.${expire}`).digest('hex');
}

/**
 * A fresh base URL (no `sq`) for one itag of a broadcast, in the query form YouTube's player
 * response gives and yt-dlp uses; it expires `adaptive.expireInSeconds` from now. `adaptive` is the
 * stand-in's `stateFor(videoId)`.
 */
export function googlevideoUrl(adaptive, itag, now = Date.now()) {
  const format = adaptive.formats.find((f) => f.itag === Number(itag));
  if (format === undefined) throw new Error(`googlevideo stand-in: ${adaptive.videoId} has no itag ${itag}`);
  const expire = Math.floor(now / 1000) + adaptive.expireInSeconds;
  const query = new URLSearchParams({
    expire: String(expire),
    ei: randomBytes(12).toString('base64url'),
    id: `${adaptive.videoId}.1`,
    itag: String(itag),
    source: 'yt_live_broadcast',
    requiressl: 'yes',
    live: '1',
    hang: '1',
    noclen: '1',
    mime: format.mime,
    gir: 'yes',
    keepalive: 'yes',
    sparams: 'expire,ei,id,itag,source,requiressl,live,hang,noclen,mime,gir',
    sig: googlevideoSig(adaptive.sigSecret, adaptive.videoId, itag, expire),
  });
  return `${adaptive.origin}/videoplayback?${query}`;
}
