// Decisions: docs/decisions/0037-how-a-capture-ends.md, docs/decisions/0070-youtube-fragments-from-the-first.md, docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import { AppError } from '../errors.js';
import { nextCaptureState } from './capture-lifecycle.js';
import type { Capture, FragmentFormatIds } from './capture.js';
import { FragmentsUnavailable } from './fragment-tracks.js';
import type { CaptureLease, CaptureStates, EncoderLog, FragmentRecorder, Renewal, StreamRecorder } from './ports.js';
import type { Livestream } from '../livestream/livestream.js';
import type { LivestreamRepo, Scheduler } from '../livestream/ports.js';
import type { FragmentedStream, SourceStatus, StreamSource } from '../sources/ports.js';

export interface CaptureDeps {
  livestreams: LivestreamRepo;
  captures: CaptureLease & CaptureStates & EncoderLog;
  source: StreamSource;
  recorder: StreamRecorder;
  fragmentRecorder: FragmentRecorder;
  scheduler: Scheduler;
}

/** What a capture records: a media playlist, or the source's fragments in the formats it pinned. */
type Recording = { playlistUrl: string } | { stream: FragmentedStream };
/** The worker recording, and its signal to stop. */
type RecordingWorker = { workerId: string; signal: AbortSignal };

/**
 * Records a live stream to its end as `workerId`, resuming stored progress, then schedules
 * finalize. Throws `capture_not_running` (a retry) while another live worker holds the capture.
 */
export async function captureStream(
  deps: CaptureDeps,
  id: string,
  worker: { workerId: string; staleAfterSeconds: number; signal: AbortSignal },
): Promise<void> {
  const record = await deps.livestreams.findById(id);
  if (record === null || record.status === 'finished' || record.status === 'failed') return;
  const capture = await deps.captures.claim(id, worker.workerId, worker.staleAfterSeconds);
  if (capture === null) {
    const current = await deps.captures.get(id);
    // refused because the recording is over (not because another worker holds it): finalize it
    if (current !== null && nextCaptureState(current.state, 'claimed') === null) return deps.scheduler.finalize(id);
    throw new AppError('conflict', 'capture_not_running', `Another worker is recording ${id}.`);
  }
  // a record being taken down is not recorded further: its capture ends at once, for the takedown to complete (0024)
  if (record.takedown !== null) {
    await deps.captures.end(id, 'cancelled');
    return deps.scheduler.finalize(id);
  }
  await deps.captures.appendLog(id, [`[kura] worker ${worker.workerId} records this stream`]);
  const recording = await howToRecord(deps, record, capture);
  if (record.status !== 'live') await deps.livestreams.transition(id, { type: 'went_live', at: new Date() });
  // its chat is a job of its own (any worker's), asked again whenever the capture resumes; it never holds the video up
  if (record.platform === 'youtube') await deps.scheduler.chat(id);
  const reason = await recordIt(deps, record, capture, recording, worker);
  await deps.captures.end(id, reason);
  await deps.scheduler.finalize(id);
}

/**
 * The source's word that the stream can be recorded now (live, or ended with its fragments still
 * served: YouTube's post_live), or a throw saying why not (the capture is tried again).
 */
async function liveStatus(deps: Pick<CaptureDeps, 'source'>, record: Livestream, options?: { fragments: false }): Promise<SourceStatus> {
  const status = await deps.source.check(record.sourceUrl, record.requestedQuality, options);
  if (status.state === 'live' || (status.state === 'ended' && status.fragments !== undefined)) return status;
  throw new Error(`${record.id} cannot be recorded now: ${status.reason ?? status.state}`);
}

/**
 * A new capture records the source's fragments from the first when it offers them, else its
 * playlist; a resumed one goes on as it began, fragments under fresh URLs (they expire) in the
 * formats it pinned.
 */
async function howToRecord(deps: CaptureDeps, record: Livestream, capture: Capture): Promise<Recording> {
  if (capture.fragmentFormats !== null) return { stream: pinned(await liveStatus(deps, record), capture.fragmentFormats) };
  if (capture.playlistUrl !== null) return { playlistUrl: capture.playlistUrl };
  const status = await liveStatus(deps, record);
  if (status.fragments !== undefined) {
    await deps.captures.setFragmentFormats(record.id, idsOf(status.fragments));
    return { stream: status.fragments };
  }
  if (status.playlistUrl === undefined) throw new Error(`${record.id} is live, but its source names nothing to record`);
  if (status.fragmentsRefused !== undefined) await deps.captures.appendLog(record.id, [`[kura] ${status.fragmentsRefused}`]);
  await deps.captures.setPlaylist(record.id, status.playlistUrl);
  return { playlistUrl: status.playlistUrl };
}

/** What a capture pins of the formats it records, to find them again under renewed URLs. */
function idsOf({ video, audio, fragmentSeconds }: FragmentedStream): FragmentFormatIds {
  return { video: video.id, audio: audio.id, fragmentSeconds, codecs: `${video.codec},${audio.codec}` };
}

/** The formats a capture pinned, under the URLs the source gave now; throws when it no longer offers them. */
function pinned(status: SourceStatus, ids: FragmentFormatIds): FragmentedStream {
  const offered = status.fragments?.offered ?? [];
  const video = offered.find((f) => f.id === ids.video);
  const audio = offered.find((f) => f.id === ids.audio);
  if (video === undefined || audio === undefined) throw new Error(`the source no longer offers formats ${ids.video} and ${ids.audio} in fragments`);
  return { video, audio, fragmentSeconds: ids.fragmentSeconds, offered };
}

/**
 * Records until the stream ends. When the fragment path cannot start (nothing stored), the
 * capture falls back to the playlist of the live edge's window, saying why.
 */
async function recordIt(deps: CaptureDeps, record: Livestream, capture: Capture, recording: Recording, worker: RecordingWorker) {
  if ('playlistUrl' in recording) return recordPlaylist(deps, record, capture, recording.playlistUrl, worker);
  const ids = capture.fragmentFormats ?? idsOf(recording.stream);
  const renew = () => renewal(deps, record, ids);
  try {
    return await deps.fragmentRecorder.record({ capture, stream: recording.stream, workerId: worker.workerId, renew }, worker.signal);
  } catch (error) {
    if (!(error instanceof FragmentsUnavailable)) throw error;
    const status = await liveStatus(deps, record, { fragments: false });
    if (status.playlistUrl === undefined) throw error;
    await deps.captures.appendLog(record.id, [`[kura] recording fragments failed (${error.message}); recording from the live edge's window through HLS`]);
    await deps.captures.setFragmentFormats(record.id, null);
    await deps.captures.setPlaylist(record.id, status.playlistUrl);
    const fresh = (await deps.captures.get(record.id)) ?? capture;
    return recordPlaylist(deps, record, fresh, status.playlistUrl, worker);
  }
}

/** What the source says now of a capture of fragments, in the pinned formats (decision 0088). */
export async function renewal(deps: Pick<CaptureDeps, 'source'>, record: Livestream, ids: FragmentFormatIds): Promise<Renewal> {
  const status = await deps.source.check(record.sourceUrl, record.requestedQuality);
  const reason = status.reason ?? status.state;
  switch (status.state) {
    case 'no_access':
      return { state: 'access_lost', reason };
    case 'live':
    case 'ended':
      try {
        if (status.state === 'live') return { state: 'live', stream: pinned(status, ids) };
        return { state: 'ended', reason, stream: status.fragments === undefined ? null : pinned(status, ids) };
      } catch (error) {
        return status.state === 'ended' ? { state: 'ended', reason, stream: null } : { state: 'unknown', reason: (error as Error).message };
      }
    case 'gone':
      return { state: 'ended', reason: `the video is gone: ${reason}`, stream: null };
    case 'not_live':
    case 'not_yet':
      return { state: 'not_live', reason };
    default:
      return { state: 'unknown', reason };
  }
}

function recordPlaylist(deps: CaptureDeps, record: Livestream, capture: Capture, playlistUrl: string, worker: RecordingWorker) {
  // the source hands out the playlist to record, again whenever a signed one expires
  const refreshPlaylist = async () => (await liveStatus(deps, record, { fragments: false })).playlistUrl ?? null;
  return deps.recorder.record({ capture, playlistUrl, workerId: worker.workerId, refreshPlaylist }, worker.signal);
}
