import { rename, writeFile } from 'node:fs/promises';

/**
 * What the STAND-IN yt-dlp's sites answer (test/support/yt-dlp-sites.mjs) from now on, written to
 * its state file whole (by a rename, so the stand-in never reads half of it); its runs are noted in `calls`.
 */
export async function sitesSay(stateFile: string, calls: string, sites: object): Promise<void> {
  await writeFile(`${stateFile}.new`, JSON.stringify({ sites, calls }));
  await rename(`${stateFile}.new`, stateFile);
}

/** The Twitch id of Alice's broadcast in these tests, and its record's. */
export const ALICE_STREAM = '41234567890';

/** Alice's Twitch channel as yt-dlp's Twitch extractor sees it: live (or not) with its HLS at `hlsUrl`. */
export function aliceOnTwitch(hlsUrl: string, live = true) {
  return {
    twitch: {
      alice: {
        live,
        streamId: ALICE_STREAM,
        displayName: 'Alice',
        title: '朝の雑談 ☀',
        startedAt: Math.floor(Date.now() / 1000),
        hlsUrl,
        // the preview is served beside the stream (this machine reaches no CDN)
        thumbnailUrl: hlsUrl.replace(/index\.m3u8.*$/, 'preview-640x360.jpg'),
      },
    },
  };
}
