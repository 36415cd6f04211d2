// Decisions: docs/decisions/0071-watching-a-capture-of-fragments.md
import { AppError } from '../errors.js';
import type { Gap, RecordedSegment } from '../capture/capture.js';
import { FRAGMENT_TRACKS, recordedFragments, type FragmentTrack, type RecordedFragment } from '../capture/fragment-tracks.js';
import { buildLivePlaylist } from './live-playlist.js';
import { hasInitSection, type PartFormat } from './part-format.js';
import { buildMultivariantPlaylist, peakBandwidth, trackPlaylistInput } from './live-tracks.js';
import { servablePrefix, type PartFormats } from './part-format-cache.js';

/** What a capture of fragments recorded so far, as getLivePlaylist read it. */
export interface RecordedFragments {
  livestreamId: string;
  fragmentSeconds: number;
  /** The codecs of the video and the audio (`vp9,opus`), when the capture knows them. */
  codecs?: string;
  segments: readonly RecordedSegment[];
  gaps: readonly Gap[];
  /** How many bytes of each part this process can read. */
  readable: ReadonlyMap<number, number>;
  /** The capture will record nothing more. */
  stopped: boolean;
}

/** Each track's format in each part, read from the track's first fragment there. */
type TrackFormats = Record<FragmentTrack, Map<number, PartFormat>>;

/**
 * The live playlist of a capture of fragments (see live-tracks.ts): the multivariant playlist
 * without `track`, that track's media playlist with it; null while a track has no fragment this
 * process can serve. Throws `live_not_playable` for fragments in no format a player is handed in
 * two pieces (neither fMP4 nor WebM).
 */
export async function fragmentPlaylist(
  formats: PartFormats,
  recorded: RecordedFragments,
  options: { track?: FragmentTrack; delta?: boolean },
): Promise<{ text: string; ended: boolean } | null> {
  const { livestreamId, fragmentSeconds, segments } = recorded;
  const listed = await servableFragments(formats, recorded);
  for (const track of FRAGMENT_TRACKS) {
    if (!listed.fragments.some((fragment) => fragment.track === track)) return null;
    if ([...listed.formats[track].values()].some((format) => !hasInitSection(format))) throw notPlayable(livestreamId);
  }
  const ended = recorded.stopped && listed.fragments.length === segments.length;
  if (options.track === undefined)
    return { text: buildMultivariantPlaylist({ bandwidth: peakBandwidth(listed.fragments, fragmentSeconds), codecs: recorded.codecs }), ended };
  // a gap is listed only before the first fragment left out, so each playlist only ever grows at its end
  const until = segments[listed.fragments.length]?.sequence ?? Number.POSITIVE_INFINITY;
  const input = trackPlaylistInput({
    track: options.track,
    fragments: listed.fragments,
    gaps: recorded.gaps.filter((gap) => gap.firstSequence < until),
    formats: listed.formats[options.track],
    fragmentSeconds,
    ended,
    delta: options.delta,
  });
  return { text: buildLivePlaylist(input), ended };
}

/** The fragments from the first up to the first one whose bytes (or whose track's format in its part, read from the track's first fragment there) this process cannot read yet. */
async function servableFragments(formats: PartFormats, recorded: RecordedFragments): Promise<{ fragments: RecordedFragment[]; formats: TrackFormats }> {
  const all = recordedFragments(recorded.segments);
  const found = await servablePrefix(
    all,
    recorded.readable,
    (fragment) => `${fragment.track} ${fragment.part}`,
    (first) => formats.ofFragment(recorded.livestreamId, first.track, first),
  );
  const known: TrackFormats = { video: new Map(), audio: new Map() };
  for (const fragment of all.slice(0, found.count))
    known[fragment.track].set(fragment.part, found.formats.get(`${fragment.track} ${fragment.part}`) as PartFormat);
  return { fragments: all.slice(0, found.count), formats: known };
}

function notPlayable(livestreamId: string): AppError {
  return new AppError(
    'conflict',
    'live_not_playable',
    `${livestreamId} is recorded as fragments in a format no player here can be handed while it is recorded: watching it is not possible until its archive plays, once the stream ends (/api/download/${livestreamId}/video).`,
  );
}
