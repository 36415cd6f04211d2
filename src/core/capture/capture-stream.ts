// Decisions: docs/decisions/0037-how-a-capture-ends.md, docs/decisions/0070-youtube-fragments-from-the-first.md, docs/decisions/0088-youtube-ends-only-when-it-says-so.md
import { AppError } from '../errors.js';
import { nextCaptureState } from './capture-lifecycle.js';
import type { Capture, FragmentFormatIds } from './capture.js';
import { FragmentsUnavailable } from './fragment-tracks.js';
import { keepLease } from './lease.js';
import { redactUrlsIn } from '../sources/public-url.js';
import { hasLiveChat } from '../vocabulary.js';
import type { CaptureLease, CaptureStates, EncoderLog, FragmentRecorder, PlaylistSource, Renewal, StreamRecorder } from './ports.js';
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
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
type Recording = { playlist: PlaylistSource } | { stream: FragmentedStream };
/**
 * The worker recording, and its signal to stop; `unreachableSeconds`: how long a source may give
 * no answer before its capture ends `source_unreachable` (KURA_CAPTURE_UNREACHABLE_SECONDS, as the recorder's).
 */
type RecordingWorker = { workerId: string; staleAfterSeconds: number; unreachableSeconds: number; signal: AbortSignal };

/** A capture with nothing to record yet whose source gave no answer for the worker's `unreachableSeconds`. */
class SourceUnreachable extends Error {}

/**
 * Records a live stream to its end as `workerId`, resuming stored progress, then schedules
 * finalize. Throws `capture_not_running` (a retry) while another live worker holds the capture.
 */
export async function captureStream(deps: CaptureDeps, id: string, worker: RecordingWorker): Promise<void> {
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
  let recording: Recording;
  try {
    recording = await howToRecord(deps, record, capture, worker);
  } catch (error) {
    // ended as the recorder ends a capture whose playlist stopped answering: kept what there is (nothing), finalized
    if (!(error instanceof SourceUnreachable)) throw error;
    await deps.captures.appendLog(id, [`[kura] capture ended (source_unreachable): ${error.message}`]);
    await deps.captures.end(id, 'source_unreachable');
    return deps.scheduler.finalize(id);
  }
  if (record.status !== 'live') await deps.livestreams.transition(id, { type: 'went_live', at: new Date() });
  // its chat is a job of its own (any worker's), asked again whenever the capture resumes; it never holds the video up
  if (hasLiveChat(record.platform)) await deps.scheduler.chat(id);
  const reason = await recordIt(deps, record, capture, recording, worker);
  await deps.captures.end(id, reason);
  await deps.scheduler.finalize(id);
}

/** The first wait before the source is asked again when it could not say, and the longest (each doubles the last). */
const UNSURE_FIRST_MS = 5000;
const UNSURE_MOST_MS = 300_000;

/**
 * The source's word that the stream can be recorded now (live, or ended with its fragments still
 * served: YouTube's post_live), or a throw saying why not (the capture is tried again). A look
 * that could not say (yt-dlp failing, a rate limit, a bot check) is no answer: it is asked again
 * after 5 s, then twice as long each time up to 5 minutes, the capture's lease kept meanwhile and
 * each wait in its log (decision 0088). With `unanswered: 'wait'` (a capture with nothing to record
 * yet), a source that gave no answer at all is asked the same way, until `unreachableSeconds` after
 * the first such look: then it throws SourceUnreachable.
 */
async function liveStatus(
  deps: Pick<CaptureDeps, 'source' | 'captures'>,
  record: Livestream,
  worker: RecordingWorker,
  options: { fragments?: false; unanswered?: 'wait' } = {},
): Promise<SourceStatus> {
  let stopLease: (() => void) | null = null;
  let unansweredSince: number | null = null;
  try {
    for (let wait = UNSURE_FIRST_MS; ; wait = Math.min(2 * wait, UNSURE_MOST_MS)) {
      const status = await deps.source.check(record.sourceUrl, record.requestedQuality, options.fragments === false ? { fragments: false } : undefined);
      if (status.state === 'live' || (status.state === 'ended' && status.fragments !== undefined)) return status;
      const unanswered = options.unanswered === 'wait' && status.state === 'not_yet' && status.unanswered === true;
      if ((status.state !== 'unknown' && !unanswered) || worker.signal.aborted)
        throw new Error(`${record.id} cannot be recorded now: ${status.reason ?? status.state}`);
      stopLease ??= keepLease(deps.captures, record.id, worker.workerId, (worker.staleAfterSeconds * 1000) / 3);
      let pauseMs = wait;
      if (unanswered) {
        unansweredSince ??= Date.now();
        const left = unansweredSince + worker.unreachableSeconds * 1000 - Date.now();
        if (left <= 0) throw new SourceUnreachable(`the source gave no answer for ${worker.unreachableSeconds} s; nothing was recorded`);
        pauseMs = Math.min(wait, left);
      }
      const why = unanswered ? 'the source did not answer' : 'the source could not say whether the stream is live';
      await deps.captures.appendLog(record.id, [`[kura] ${why} (${redactUrlsIn(status.reason ?? status.state)}); asking again in ${pauseMs / 1000} s`]);
      await pause(pauseMs, worker.signal);
    }
  } finally {
    stopLease?.();
  }
}

/** Waits `ms`, or less when the signal aborts (the next look then ends the wait's loop). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * A new capture records the source's fragments from the first when it offers them, else its
 * playlist; a resumed one goes on as it began, fragments under fresh URLs (they expire) in the
 * formats it pinned.
 */
async function howToRecord(deps: CaptureDeps, record: Livestream, capture: Capture, worker: RecordingWorker): Promise<Recording> {
  if (capture.fragmentFormats !== null) return { stream: pinned(await liveStatus(deps, record, worker), capture.fragmentFormats) };
  // headers are not stored: a source that needs them answers the stored URL 403, and is asked again (recordPlaylist)
  if (capture.playlistUrl !== null) return { playlist: { url: capture.playlistUrl, headers: null, audio: capture.audioLanes } };
  const status = await liveStatus(deps, record, worker, { unanswered: 'wait' });
  if (status.fragments !== undefined) {
    await deps.captures.setFragmentFormats(record.id, idsOf(status.fragments));
    return { stream: status.fragments };
  }
  const playlist = playlistOf(status);
  if (playlist === null) throw new Error(`${record.id} is live, but its source names nothing to record`);
  if (status.fragmentsRefused !== undefined) await deps.captures.appendLog(record.id, [`[kura] ${status.fragmentsRefused}`]);
  await deps.captures.setPlaylist(record.id, playlist.url, playlist.audio);
  return { playlist };
}

/** The playlist a status names, with the headers it asks for; null when it names none. */
function playlistOf(status: SourceStatus): PlaylistSource | null {
  if (status.playlistUrl === undefined) return null;
  return { url: status.playlistUrl, headers: status.playlistHeaders ?? null, audio: status.playlistAudio ?? [] };
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
  if ('playlist' in recording) return recordPlaylist(deps, record, capture, recording.playlist, worker);
  const ids = capture.fragmentFormats ?? idsOf(recording.stream);
  const renew = () => renewal(deps, record, ids);
  try {
    return await deps.fragmentRecorder.record({ capture, stream: recording.stream, workerId: worker.workerId, renew }, worker.signal);
  } catch (error) {
    if (!(error instanceof FragmentsUnavailable)) throw error;
    const status = await liveStatus(deps, record, worker, { fragments: false });
    const playlist = playlistOf(status);
    if (playlist === null) throw error;
    await deps.captures.appendLog(record.id, [`[kura] recording fragments failed (${error.message}); recording from the live edge's window through HLS`]);
    await deps.captures.setFragmentFormats(record.id, null);
    await deps.captures.setPlaylist(record.id, playlist.url, playlist.audio);
    const fresh = (await deps.captures.get(record.id)) ?? capture;
    return recordPlaylist(deps, record, fresh, playlist, worker);
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

function recordPlaylist(deps: CaptureDeps, record: Livestream, capture: Capture, playlist: PlaylistSource, worker: RecordingWorker) {
  // the source hands out the playlist to record, again whenever a signed one expires
  const refreshPlaylist = async () => playlistOf(await liveStatus(deps, record, worker, { fragments: false }));
  return deps.recorder.record({ capture, playlist, workerId: worker.workerId, refreshPlaylist }, worker.signal);
}
