import type { FastifyReply } from 'fastify';
import type { ArchiveStore } from '../../core/archive/ports.js';
import { chaptersOf } from '../../core/moments/chapters.js';
import { listMoments } from '../../core/moments/moment-actions.js';
import type { MomentRepo } from '../../core/moments/ports.js';
import { chapteredArchive } from '../../core/playback/clip-recording.js';
import type { ClipCutter } from '../../core/playback/ports.js';
import type { LivestreamRepo } from '../../core/records/ports.js';

/** What a video with its moments as chapters is made from. */
export interface ChapterDeps {
  moments: MomentRepo;
  cutter: ClipCutter;
}

/**
 * Sends a finished record's video with its moments as MP4 chapters, as ffmpeg copies it; false
 * (nothing sent) when the record has no moments or is not finished: the plain download answers.
 */
export async function sendChaptered(
  deps: ChapterDeps & { livestreams: LivestreamRepo; store: Pick<ArchiveStore, 'stat' | 'read' | 'localPath'> },
  id: string,
  reply: FastifyReply,
): Promise<boolean> {
  const record = await deps.livestreams.findById(id);
  if (record?.status !== 'finished' || record.archive?.videoKey == null) return false;
  const chapters = chaptersOf(await listMoments(deps, id), record.archive.lengthSeconds);
  if (chapters.length === 0) return false;
  const video = await chapteredArchive(deps, record, chapters);
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) video.cancel();
  });
  reply.type(video.meta.contentType).header('content-disposition', video.meta.contentDisposition).header('accept-ranges', 'none');
  await reply.send(video.body);
  return true;
}
