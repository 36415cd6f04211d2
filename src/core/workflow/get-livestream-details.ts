import type { Capture, CapturePart, Gap } from '../capture/capture.js';
import { getLivestream } from '../livestream/get-livestream.js';
import type { Livestream } from '../livestream/livestream.js';
import type { CaptureStates, PartLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../livestream/ports.js';

export interface LivestreamDetails {
  record: Livestream;
  /** Null for records Kura did not capture (imported, or never live). */
  capture: { capture: Capture; parts: CapturePart[]; gaps: Gap[] } | null;
}

/** One record with its capture's parts and gaps. Throws `livestream_not_found`. */
export async function getLivestreamDetails(deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog }, id: string): Promise<LivestreamDetails> {
  const record = await getLivestream(deps, id);
  const capture = await deps.captures.get(id);
  if (capture === null) return { record, capture: null };
  const [parts, gaps] = await Promise.all([deps.captures.parts(id), deps.captures.gaps(id)]);
  return { record, capture: { capture, parts, gaps } };
}
