/** The Twitch id of Alice's broadcast in these tests; her record's id is `twitch-` and this. */
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
