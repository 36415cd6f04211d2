// Decisions: docs/decisions/0019-submission.md, docs/decisions/0034-hls-sources.md
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Livestream } from '../livestream/livestream.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { LivestreamRepo, Scheduler } from '../livestream/ports.js';
import type { Inspection, StreamSource } from '../sources/ports.js';
import { channelSlug, defaultTitle } from '../livestream/record-names.js';
import { reviveLivestream } from './revive-livestream.js';

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
 * an HLS playlist gets a generated one. A YouTube video already archived is `already_archived`;
 * one whose record failed is given another go (reviveLivestream), keeping its submitters.
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
  if (earlier?.status === 'finished') throw new AppError('conflict', 'already_archived', `${earlier.id} is archived already.`);
  const id = existing?.id ?? inspection.id ?? `hls-${randomBytes(8).toString('base64url')}`;
  // the failed record is written as it is (joined by the submitter), then moved by the lifecycle
  const failed = existing === null && earlier?.status === 'failed' ? earlier : null;
  const url = new URL(canonicalUrl);
  await deps.livestreams.upsertMany([
    {
      id,
      platform: inspection.platform,
      sourceUrl: canonicalUrl,
      status: existing?.status ?? failed?.status ?? 'upcoming',
      failureReason: failed?.failureReason ?? null,
      // what the source says of itself first (YouTube); the names given are for sources that say nothing (HLS)
      title: existing?.title ?? details?.title ?? request.title ?? defaultTitle(request.channelName ?? url.hostname, request.now),
      channelName: existing?.channelName ?? details?.channelName ?? request.channelName ?? url.hostname,
      channelId:
        existing?.channelId ?? details?.channelId ?? request.channelId ?? (request.channelName === undefined ? url.hostname : channelSlug(request.channelName)),
      thumbnailUrl: existing?.thumbnailUrl ?? details?.thumbnailUrl ?? null,
      scheduledStart: existing?.scheduledStart ?? details?.scheduledStart ?? request.now,
      startedAt: existing?.startedAt ?? null,
      endedAt: null,
      archive: null,
      submitters: [request.submitter],
      requestedQuality: existing?.requestedQuality ?? request.quality ?? null,
    },
  ]);
  if (failed !== null) await reviveLivestream(deps, id, request.submitter);
  else if (existing === null) await deps.scheduler.watch(id);
  return (await deps.livestreams.findById(id)) as Livestream;
}
