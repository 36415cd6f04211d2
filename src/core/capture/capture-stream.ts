// Decisions: docs/decisions/0037-how-a-capture-ends.md
import { AppError } from '../errors.js';
import { nextCaptureState } from './capture-lifecycle.js';
import type { CaptureLease, CaptureStates, EncoderLog, StreamRecorder } from './ports.js';
import type { LivestreamRepo, Scheduler } from '../livestream/ports.js';
import type { StreamSource } from '../sources/ports.js';

export interface CaptureDeps {
  livestreams: LivestreamRepo;
  captures: CaptureLease & CaptureStates & EncoderLog;
  source: StreamSource;
  recorder: StreamRecorder;
  scheduler: Scheduler;
}

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
  await deps.captures.appendLog(id, [`[kura] worker ${worker.workerId} records this stream`]);
  // the source hands out the playlist to record, again whenever a signed one expires
  const livePlaylist = async () => {
    const status = await deps.source.check(record.sourceUrl, record.requestedQuality);
    if (status.state !== 'live' || status.playlistUrl === undefined) throw new Error(`${id} is not live any more: ${status.reason ?? status.state}`);
    return status.playlistUrl;
  };
  let playlistUrl = capture.playlistUrl;
  if (playlistUrl === null) {
    playlistUrl = await livePlaylist();
    await deps.captures.setPlaylist(id, playlistUrl);
  }
  if (record.status !== 'live') await deps.livestreams.transition(id, { type: 'went_live', at: new Date() });
  // its chat is a job of its own (any worker's), asked again whenever the capture resumes; it never holds the video up
  if (record.platform === 'youtube') await deps.scheduler.chat(id);
  const reason = await deps.recorder.record({ capture, playlistUrl, workerId: worker.workerId, refreshPlaylist: livePlaylist }, worker.signal);
  await deps.captures.end(id, reason);
  await deps.scheduler.finalize(id);
}
