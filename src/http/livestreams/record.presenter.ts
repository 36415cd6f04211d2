// Decisions: docs/decisions/0006-history-queue-and-stats.md, docs/decisions/0010-one-record-presenter-per-audience.md, docs/decisions/0102-frames-only-while-looked-at.md
import { describeEndReason } from '../../core/capture/capture.js';
import type { LivestreamDetails as CoreDetails } from '../../core/record-actions/get-livestream-details.js';
import type { Livestream } from '../../core/records/livestream.js';
import { redactUrlsIn, type Audience } from '../../core/sources/public-url.js';
import { publicRecord } from '../../core/record-actions/public-record.js';
import type { WatchLook } from '../../core/records/ports.js';
import type { CaptureProgress } from '../../core/capture/capture-progress.js';
import { LIVE_FRAME_EVERY_MS } from '../../core/playback/refresh-live-frame.js';
import type { CaptureProgressBody, LivestreamDetails, LivestreamRecord } from './record.schema.js';

/** A record as history, queue and video answer it, and as the search index holds it (see publicRecord, which webhook events carry too). */
export function presentRecord(livestream: Livestream, publicUrl: string, audience: Audience): LivestreamRecord {
  return publicRecord(livestream, publicUrl, audience);
}

/** The last look at an upcoming record's source, what it answered redacted but for the admin. */
export function presentLastCheck(look: WatchLook | null, audience: Audience): LivestreamDetails['lastCheck'] {
  if (look === null) return null;
  return { at: look.lookedAt.toISOString(), result: shownTo(audience, look.reason), nextAt: look.nextLookAt.toISOString() };
}

/** A record with its capture facts, for `/api/video/{id}`; a failure's reason with its URLs redacted but for the admin. */
export function presentDetails(details: CoreDetails, publicUrl: string, audience: Audience): Omit<LivestreamDetails, 'moments'> {
  const { record: livestream, capture } = details;
  const record = presentRecord(livestream, publicUrl, audience);
  return {
    ...record,
    failureReason: shownTo(audience, livestream.failureReason),
    downloads: livestream.downloadCount,
    sha256: livestream.archive?.sha256 ?? null,
    ...(record.integrity === undefined ? {} : { verifiedAt: livestream.integrity?.verifiedAt.toISOString() ?? null }),
    createdAt: livestream.createdAt.toISOString(),
    updatedAt: livestream.updatedAt.toISOString(),
    pinned: livestream.pinned,
    capture:
      capture === null
        ? null
        : {
            state: capture.capture.state,
            endReason: capture.capture.endReason,
            endNote: capture.capture.endReason === null ? null : describeEndReason(capture.capture.endReason),
            parts: capture.parts,
            gaps: capture.gaps,
            complete: capture.gaps.length === 0,
            adBreaks: capture.adBreaks.map((cut) => ({ at: cut.atSeconds ?? null, seconds: cut.seconds })),
            progress: presentProgress(capture.progress, livestream.id, publicUrl),
          },
    lastCheck: presentLastCheck(details.lastLook, audience),
  };
}

/**
 * A recording's figures, and its frame's URL, which `at` makes the frame's own: each new frame is
 * a new URL, and an old one stays cacheable. Asking for it is what makes frames (0102): while no
 * frame is fresh, `look` changes every LOOK_AGAIN_MS, so a page left open asks again.
 */
export function presentProgress(progress: CaptureProgress | null, id: string, publicUrl: string, now = new Date()): CaptureProgressBody | null {
  if (progress === null) return null;
  const { frameAt, ...figures } = progress;
  const fresh = frameAt !== null && now.getTime() - frameAt.getTime() < FRAME_FRESH_FOR_MS;
  const look = fresh ? '' : `&look=${Math.floor(now.getTime() / LOOK_AGAIN_MS)}`;
  return {
    ...figures,
    frameUrl: `${publicUrl}/api/video/${encodeURIComponent(id)}/frame.jpg?at=${frameAt?.getTime() ?? 0}${look}`,
    frameAt: frameAt?.toISOString() ?? null,
  };
}

/** A frame is fresh for one and a half of its intervals: the next one is late past that (or nobody looked). */
const FRAME_FRESH_FOR_MS = (LIVE_FRAME_EVERY_MS * 3) / 2;
/** How often a page without a fresh frame asks for one again. */
const LOOK_AGAIN_MS = 30_000;

/** A text Kura wrote from what a source answered: its URLs redacted but for the admin. */
function shownTo(audience: Audience, text: string | null): string | null {
  return audience === 'admin' || text === null ? text : redactUrlsIn(text);
}
