import type { AdBreak, Capture, CapturePart, Gap } from '../capture/capture.js';
import { captureProgress, type CaptureProgress } from '../capture/capture-progress.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import type { CaptureStates, PartLog } from '../capture/ports.js';
import type { LivestreamRepo, WatchLook, WatchLooks } from '../records/ports.js';

export interface LivestreamDetails {
  record: Livestream;
  /** Null for records Kura did not capture (imported, or never live). */
  /** `progress`: the figures of a capture being recorded, null once it is not. */
  capture: { capture: Capture; parts: CapturePart[]; gaps: Gap[]; adBreaks: AdBreak[]; progress: CaptureProgress | null } | null;
  /** The last look at the source of an upcoming record; null for any other, and before the first. */
  lastLook: WatchLook | null;
}

/** One record with its capture's parts, gaps and ad breaks, and its figures while it is recorded. Throws `livestream_not_found`. */
export async function getLivestreamDetails(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog; watchLooks: WatchLooks },
  id: string,
): Promise<LivestreamDetails> {
  const record = await getLivestream(deps, id);
  const lastLook = record.status === 'upcoming' ? ((await deps.watchLooks.find([id])).get(id) ?? null) : null;
  const capture = await deps.captures.get(id);
  if (capture === null) return { record, capture: null, lastLook };
  const [parts, gaps, adBreaks] = await Promise.all([deps.captures.parts(id), deps.captures.gaps(id), deps.captures.adBreaks(id)]);
  const progress = await captureProgress(deps, capture, { parts, gaps });
  return { record, capture: { capture, parts, gaps, adBreaks, progress }, lastLook };
}
