// Decisions: docs/decisions/0071-watching-a-capture-of-fragments.md
/*
 * The live playlists of a capture of a source's fragments (see fragment-tracks.ts): `live.m3u8`
 * is a multivariant playlist naming one media playlist per track, the audio as the video's
 * rendition. Each track lists its own fragments, numbered as the source numbers them; a
 * fragment's segment is its bytes after its initialization section, which `#EXT-X-MAP` names.
 * WebM fragments (VP9, Opus) are listed the same way with their own extension: HLS players cannot
 * play them, the page's WebM player (web/src/lib/webm-live-player.ts) reads these playlists.
 */
import type { Gap } from '../capture/capture.js';
import { sequenceOf, type FragmentTrack, type RecordedFragment } from '../capture/fragment-tracks.js';
import type { LivePlaylistInput, LiveUris } from './live-playlist.js';
import type { PartFormat } from './part-format.js';

const extensionOf = (format: PartFormat | undefined) => (format?.kind === 'webm' ? 'webm' : 'mp4');

/** Where a track's media playlist is served, relative to `live.m3u8`. */
export const trackPlaylistUri = (track: FragmentTrack): string => `live/${track}.m3u8`;

/**
 * Where a track's entries are served, relative to its media playlist (`live/{track}.m3u8`): a
 * fragment as its capture sequence (`{part}/{2n or 2n + 1}.m4s`, next to an HLS capture's
 * segments; `.webm` for WebM), and the track's initialization section in a part as
 * `{part}/init-{track}.mp4` (`.webm`).
 */
export function trackUris(track: FragmentTrack): LiveUris {
  return {
    segment: (part, n, format) => `${part}/${sequenceOf(n, track)}.${format?.kind === 'webm' ? 'webm' : 'm4s'}`,
    init: (part, format) => `${part}/init-${track}.${extensionOf(format)}`,
  };
}

/** The lost fragments of `track` among a capture's gaps (in capture sequences), each fragment `fragmentSeconds` long. */
export function trackGaps(gaps: readonly Gap[], track: FragmentTrack, fragmentSeconds: number): Gap[] {
  const lost: Gap[] = [];
  for (const gap of gaps) {
    const first = Math.ceil((gap.firstSequence - sequenceOf(0, track)) / 2);
    const last = Math.floor((gap.lastSequence - sequenceOf(0, track)) / 2);
    if (first <= last) lost.push({ firstSequence: first, lastSequence: last, seconds: (last - first + 1) * fragmentSeconds, reason: gap.reason });
  }
  return lost;
}

export interface TrackPlaylistInput {
  track: FragmentTrack;
  /** The track's fragments to list, in order (see recordedFragments). */
  fragments: readonly RecordedFragment[];
  /** The capture's lost sequences (none past the last listed fragment unless the capture has ended). */
  gaps: readonly Gap[];
  /** The track's format in each part its fragments are in (fMP4, WebM: the length of each fragment's initialization section). */
  formats: ReadonlyMap<number, PartFormat>;
  fragmentSeconds: number;
  ended: boolean;
  delta?: boolean;
}

/**
 * What buildLivePlaylist makes one track's media playlist of: its fragments as segments numbered
 * by fragment (media sequence n), each `fragmentSeconds` long (the audio's as the video's), its
 * lost fragments as gaps, and its own URIs.
 */
export function trackPlaylistInput(input: TrackPlaylistInput): LivePlaylistInput {
  const { track, fragmentSeconds } = input;
  const segments = input.fragments
    .filter((fragment) => fragment.track === track)
    .map((fragment) => ({ sequence: fragment.n, part: fragment.part, endOffset: fragment.endOffset, durationSeconds: fragmentSeconds }));
  return {
    segments,
    gaps: trackGaps(input.gaps, track, fragmentSeconds),
    formats: input.formats,
    ended: input.ended,
    delta: input.delta,
    uris: trackUris(track),
  };
}

/**
 * The peak bit rate of the video and its audio together, in bits per second, over the fragments
 * listed (with their initialization sections: a little more than what plays).
 */
export function peakBandwidth(fragments: readonly RecordedFragment[], fragmentSeconds: number): number {
  const bytes = new Map<number, number>();
  for (const fragment of fragments) bytes.set(fragment.n, (bytes.get(fragment.n) ?? 0) + fragment.endOffset - fragment.startOffset);
  const peak = Math.max(0, ...bytes.values());
  return Math.max(1, Math.ceil((peak * 8) / fragmentSeconds));
}

/**
 * The multivariant `live.m3u8` of a capture of fragments: the video's media playlist as the one
 * variant, with the audio's as its one rendition (default, chosen automatically), and the two
 * tracks' CODECS when the capture knows them (else players read them from the initialization sections).
 */
export function buildMultivariantPlaylist(input: { bandwidth: number; codecs?: string }): string {
  const codecs = input.codecs === undefined ? '' : `,CODECS="${input.codecs.replaceAll('"', '')}"`;
  return [
    '#EXTM3U',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    `#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="${trackPlaylistUri('audio')}"`,
    `#EXT-X-STREAM-INF:BANDWIDTH=${input.bandwidth}${codecs},AUDIO="audio"`,
    trackPlaylistUri('video'),
    '',
  ].join('\n');
}
