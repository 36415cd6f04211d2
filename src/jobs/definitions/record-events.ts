import type { Livestream } from '../../core/records/livestream.js';
import { redactUrlsIn } from '../../core/sources/public-url.js';
import type { JobWork } from '../job-work.js';

type Work = Pick<JobWork, 'deps' | 'log'>;

/**
 * One log line for each step of a record an operator follows: it went live and is recorded, its
 * capture ended (why, how much), it was archived (length, size, gaps), it failed (why). Titles
 * and reasons are the record's own; no URL is logged whole (one may carry a token).
 */
export const recordEvents = {
  live(work: Work, id: string): Promise<void> {
    return withRecord(work, id, (record) => work.log?.info({ id }, `live, recording: ${id} "${record.title}"`));
  },

  async captureEnded(work: Work, id: string): Promise<void> {
    const capture = await work.deps.captures.get(id);
    if (capture === null || capture.state !== 'ended') return;
    const gaps = await work.deps.captures.gaps(id);
    work.log?.info(
      { id, endReason: capture.endReason, gaps: gaps.length },
      `capture ended: ${id} (${capture.endReason ?? 'no reason'}), ${gaps.length} gap(s)`,
    );
  },

  archived(work: Work, id: string): Promise<void> {
    return withRecord(work, id, (record) => {
      if (record.status !== 'finished' || record.archive === null) return;
      const { lengthSeconds, fileSizeBytes } = record.archive;
      work.log?.info({ id, lengthSeconds, fileSizeBytes }, `archived: ${id} "${record.title}", ${lengthSeconds} s, ${fileSizeBytes} bytes`);
    });
  },

  failed(work: Work, id: string): Promise<void> {
    return withRecord(work, id, (record) => {
      if (record.status !== 'failed') return;
      const reason = redactUrlsIn(record.failureReason ?? 'no reason');
      work.log?.warn({ id, reason }, `failed: ${id} "${record.title}": ${reason}`);
    });
  },
};

async function withRecord(work: Work, id: string, say: (record: Livestream) => void): Promise<void> {
  if (work.log === undefined) return;
  const record = await work.deps.livestreams.findById(id);
  if (record !== null) say(record);
}
