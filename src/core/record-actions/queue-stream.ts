// Decisions: docs/decisions/0019-submission.md, docs/decisions/0034-hls-sources.md, docs/decisions/0090-a-stream-that-goes-on.md
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Livestream } from '../records/livestream.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import type { Inspection, StreamSource } from '../sources/ports.js';
import { channelSlug, defaultTitle } from '../records/record-names.js';
import { reviveLivestream } from './revive-livestream.js';
import { goOnRecording, whatFollows } from './go-on-recording.js';

export interface QueueRequest {
  url: string;
  submitter: string;
  title?: string;
  channelName?: string;
  channelId?: string;
  quality?: string;
  now: Date;
  /** The source's inspection of `url` when the caller made it already (a follow's check), saving a second look. */
  inspection?: Inspection;
}

/**
 * Queues a stream for archiving, or adds the submitter to its upcoming/live record. The source
 * judges the URL (`invalid_source` with its reason: an ended stream, a video that is no
 * livestream, a URL no source records) and names the record: a YouTube video keeps its video id,
 * an HLS playlist gets a generated one. A YouTube video already archived is `already_archived`,
 * unless its capture ended as the stream might go on and the source now serves fragments past it:
 * then the record goes on (goOnRecording). One whose record failed is given another go
 * (reviveLivestream), keeping its submitters.
 */
export async function queueStream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog & EncoderLog; scheduler: Scheduler; source: StreamSource },
  request: QueueRequest,
): Promise<Livestream> {
  const inspection = request.inspection ?? (await deps.source.inspect(request.url));
  if (inspection.kind === 'rejected') throw new AppError('invalid', 'invalid_source', inspection.reason);
  const { canonicalUrl, details } = inspection;
  // an upcoming or live record is joined; a failed record of the same video is queued again under its id
  const existing = await deps.livestreams.findActiveBySource(canonicalUrl);
  const earlier = existing ?? (inspection.id === null ? null : await deps.livestreams.findById(inspection.id));
  // an archived record whose stream went on after its capture ended as it might goes on (0090)
  const goesOn = earlier?.status === 'finished' ? await goesOnNow(deps, earlier) : null;
  if (earlier?.status === 'finished' && goesOn === null) throw new AppError('conflict', 'already_archived', `${earlier.id} is archived already.`);
  const id = existing?.id ?? inspection.id ?? `hls-${randomBytes(8).toString('base64url')}`;
  // the failed or finished record is written as it is (joined by the submitter), then moved by the lifecycle
  const failed = existing === null && earlier?.status === 'failed' ? earlier : null;
  const joined = existing ?? (goesOn === null ? null : earlier);
  const url = new URL(canonicalUrl);
  await deps.livestreams.upsertMany([
    {
      id,
      platform: inspection.platform,
      sourceUrl: canonicalUrl,
      status: joined?.status ?? failed?.status ?? 'upcoming',
      failureReason: failed?.failureReason ?? null,
      // what the source says of itself first (YouTube); the names given are for sources that say nothing (HLS)
      title: joined?.title ?? details?.title ?? request.title ?? defaultTitle(request.channelName ?? url.hostname, request.now),
      channelName: joined?.channelName ?? details?.channelName ?? request.channelName ?? url.hostname,
      channelId:
        joined?.channelId ?? details?.channelId ?? request.channelId ?? (request.channelName === undefined ? url.hostname : channelSlug(request.channelName)),
      thumbnailUrl: joined?.thumbnailUrl ?? details?.thumbnailUrl ?? null,
      scheduledStart: joined?.scheduledStart ?? details?.scheduledStart ?? request.now,
      startedAt: joined?.startedAt ?? null,
      endedAt: joined?.endedAt ?? null,
      archive: null,
      submitters: [request.submitter],
      requestedQuality: joined?.requestedQuality ?? request.quality ?? null,
    },
  ]);
  if (failed !== null) await reviveLivestream(deps, id, request.submitter);
  else if (goesOn !== null) await goOnRecording(deps, id, `${goesOn}; submitted again by ${request.submitter}`).catch(joinedAlready);
  else if (existing === null) await deps.scheduler.watch(id);
  return (await deps.livestreams.findById(id)) as Livestream;
}

/** Why a finished record's stream goes on now (its capture kept, the source serving fragments past it), or null. */
async function goesOnNow(deps: { captures: CaptureStates; source: StreamSource }, record: Livestream): Promise<string | null> {
  const capture = await deps.captures.get(record.id);
  if (capture?.state !== 'kept') return null;
  const next = await whatFollows(deps, record, capture);
  return next.verdict === 'more' ? next.reason : null;
}

/** Another submission (or the look after its end) made the record go on a moment before: this one joined it. */
function joinedAlready(error: unknown): void {
  if (!(error instanceof AppError && error.code === 'livestream_state_conflict')) throw error;
}
