// Ads as a source stitches them into its playlist (docs/research/live-sites-contract.md §2).

/**
 * A playlist edit that marks the segments of `sequences` as ads stitched in as Twitch does
 * (docs/research/live-sites-contract.md §2): titled `Amazon|…` in their `#EXTINF`, with a
 * discontinuity into the break and out of it. The segments' media stay the stream's: a recording
 * that kept them would be longer by them.
 */
export function stitchAds(sequences: readonly number[]): (text: string) => string {
  const ads = new Set(sequences);
  return (text) => {
    const lines = text.split('\n');
    let sequence = Number(/^#EXT-X-MEDIA-SEQUENCE:(\d+)/m.exec(text)?.[1] ?? 0);
    let previousWasAd = false;
    const out: string[] = [];
    for (const line of lines) {
      if (line.startsWith('#EXTINF:')) {
        const ad = ads.has(sequence);
        if (ad !== previousWasAd) out.push('#EXT-X-DISCONTINUITY');
        out.push(ad ? `${line.replace(/,.*$/, '')},Amazon|4242` : line);
        previousWasAd = ad;
        continue;
      }
      out.push(line);
      if (line !== '' && !line.startsWith('#')) sequence += 1;
    }
    return out.join('\n');
  };
}
