import { randomBytes } from 'node:crypto';
import { AppError } from './errors.js';
import type { Livestream } from './livestream.js';
import type { LivestreamRepo, Scheduler } from './ports.js';

export interface ArchiveRequest {
  url: string;
  submitter: string;
  title?: string;
  channelName?: string;
  channelId?: string;
  quality?: string;
  now: Date;
}

/**
 * Queues an HLS stream for archiving, or adds the submitter to the upcoming/live record of the
 * same URL. Throws `invalid_source` for anything but an http(s) `.m3u8` URL.
 */
export async function archiveStream(deps: { livestreams: LivestreamRepo; scheduler: Scheduler }, request: ArchiveRequest): Promise<Livestream> {
  const url = parseHlsUrl(request.url);
  const existing = await deps.livestreams.findActiveBySource(url.href);
  const id = existing?.id ?? `hls-${randomBytes(8).toString('base64url')}`;
  await deps.livestreams.upsertMany([
    {
      id,
      platform: 'hls',
      sourceUrl: url.href,
      status: existing?.status ?? 'upcoming',
      failureReason: null,
      title: existing?.title ?? request.title ?? decodeURIComponent(url.pathname.split('/').filter(Boolean).at(-2) ?? url.hostname),
      channelName: existing?.channelName ?? request.channelName ?? url.hostname,
      channelId: existing?.channelId ?? request.channelId ?? url.hostname,
      thumbnailUrl: existing?.thumbnailUrl ?? null,
      scheduledStart: existing?.scheduledStart ?? request.now,
      startedAt: existing?.startedAt ?? null,
      endedAt: null,
      archive: null,
      submitters: [request.submitter],
      requestedQuality: existing?.requestedQuality ?? request.quality ?? null,
    },
  ]);
  if (existing === null) await deps.scheduler.watch(id);
  return (await deps.livestreams.findById(id)) as Livestream;
}

function parseHlsUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('invalid', 'invalid_source', `"${raw}" is not a URL.`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.pathname.endsWith('.m3u8')) {
    throw new AppError('invalid', 'invalid_source', 'Only http(s) URLs of HLS playlists (.m3u8) can be archived here.');
  }
  return url;
}
