// Decisions: docs/decisions/0043-live-playlist.md, docs/decisions/0072-a-missed-beginning-is-a-gap.md
import { AppError } from '../errors.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { RecordedSegment } from '../capture/capture.js';
import { isRecording } from '../capture/capture-lifecycle.js';
import type { FragmentTrack } from '../capture/fragment-tracks.js';
import { fragmentPlaylist } from './live-fragments.js';
import { buildLivePlaylist } from './live-playlist.js';
import { PartFormats, servablePrefix } from './part-format-cache.js';
import { RecordedSegments } from './recorded-segments.js';
import type { CaptureStates, PartLog, RecordedBytes, SegmentLog } from '../capture/ports.js';

export interface LiveDeps {
  livestreams: LivestreamRepo;
  captures: CaptureStates & PartLog & Pick<SegmentLog, 'firstSegmentPast'>;
  bytes: RecordedBytes;
  formats: PartFormats;
  segments: RecordedSegments;
}

/** What live playback reads, with its memory of the parts' formats and the segments recorded (one each per process that serves or reads them). */
export function liveDepsOf(deps: Pick<LiveDeps, 'livestreams' | 'captures' | 'bytes'>): LiveDeps {
  return { ...deps, formats: new PartFormats(deps.bytes), segments: new RecordedSegments(deps.captures) };
}

/** The playlist of a record being recorded; `ended` once it has `#EXT-X-ENDLIST`. */
export interface LivePlaylist {
  text: string;
  ended: boolean;
}

/**
 * The live HLS playlist of a record (see buildLivePlaylist): every segment recorded so far that
 * this process can serve, from the first (only the last ones for `delta`). A capture of fragments
 * has a multivariant playlist and one media playlist per `track` (see live-fragments.ts). Throws
 * `livestream_not_found`, `capture_not_started` (nothing recorded, or nothing readable here yet),
 * `archive_not_ready` (a failed record), `live_ended` (a finished record: its segments made way
 * for the archive), `live_not_playable` (fragments in no format a player is handed in two pieces) and `live_segment_not_found`
 * (a `track` of a capture that has none); `live_not_playable` too for a capture with separate audio renditions (see playlist-lanes.ts).
 */
export async function getLivePlaylist(deps: LiveDeps, id: string, options: { delta?: boolean; track?: FragmentTrack } = {}): Promise<LivePlaylist> {
  const record = await getLivestream(deps, id);
  if (record.status !== 'live') deps.segments.forget(id);
  if (record.status === 'finished') {
    throw new AppError('gone', 'live_ended', `${id} is no longer being recorded: its archive is /api/download/${id}/video.`);
  }
  if (record.status === 'failed')
    throw new AppError('conflict', 'archive_not_ready', `${id} was not recorded: ${record.failureReason ?? 'its capture failed'}.`);
  const capture = await deps.captures.get(id);
  if (capture === null) throw notStarted(record);
  const [segments, gaps, readable] = await Promise.all([deps.segments.of(id), deps.captures.gaps(id), deps.bytes.readable(id)]);
  if (capture.fragmentFormats !== null) {
    const { fragmentSeconds, codecs } = capture.fragmentFormats;
    const recorded = { livestreamId: id, fragmentSeconds, codecs, segments, gaps, readable, stopped: !isRecording(capture.state) };
    const playlist = await fragmentPlaylist(deps.formats, recorded, options);
    if (playlist === null) throw notStarted(record);
    return playlist;
  }
  // its lanes are muxed into one file when archived (see playlist-lanes.ts); no player is handed them apart yet
  if (capture.audioLanes.length > 0) throw separateAudioNotPlayable(id);
  if (options.track !== undefined) {
    throw new AppError('not_found', 'live_segment_not_found', `${id} is recorded as one HLS track: its playlist is /api/video/${id}/live.m3u8.`);
  }
  const listed = await servable(deps, id, segments, readable);
  if (listed.segments.length === 0) throw notStarted(record);
  const ended = !isRecording(capture.state) && listed.segments.length === segments.length;
  // a gap is listed only before the first segment left out, so the playlist only ever grows at its end;
  // the beginning a capture missed (before its first segment) is no part of what can be played
  const until = segments[listed.segments.length]?.sequence ?? Number.POSITIVE_INFINITY;
  const from = listed.segments[0]?.sequence ?? 0;
  const text = buildLivePlaylist({ ...listed, gaps: gaps.filter((g) => g.firstSequence < until && g.lastSequence >= from), ended, delta: options.delta });
  return { text, ended };
}

/** The segments from the first up to the first one whose bytes (or part's format, read from its first segment) this process cannot read yet. */
async function servable(deps: LiveDeps, id: string, segments: readonly RecordedSegment[], readable: ReadonlyMap<number, number>) {
  const found = await servablePrefix(
    segments,
    readable,
    (segment) => segment.part,
    (first) => deps.formats.of(id, first.part, first.endOffset),
  );
  return { segments: segments.slice(0, found.count), formats: found.formats };
}

/** A capture of a playlist with separate audio renditions: played once archived. */
export function separateAudioNotPlayable(id: string): AppError {
  return new AppError(
    'conflict',
    'live_not_playable',
    `${id} is recorded with its audio as a separate rendition, which Kura does not play while it is recorded: its archive plays once the stream ends (/api/download/${id}/video).`,
  );
}

/** How long a player is asked to wait before it asks again for a capture that has not begun. */
const CAPTURE_START_RETRY_SECONDS = 5;

function notStarted(record: Livestream): AppError {
  return new AppError(
    'conflict',
    'capture_not_started',
    `Nothing of ${record.id} can be played yet (status: ${record.status}): its first segments are not recorded here yet. Ask again in a few seconds.`,
    CAPTURE_START_RETRY_SECONDS,
  );
}
