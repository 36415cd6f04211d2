// Decisions: docs/decisions/0044-live-segments-where-they-are.md
import type { RecordedSegment } from '../capture/capture.js';
import type { PartLog } from '../capture/ports.js';

/** How many captures' segment lists a process keeps (about 1 MB for a 10-hour capture of 2 s segments). */
const REMEMBERED = 50;

/**
 * The recorded segments of the captures players watch, kept between their playlist requests so
 * that each request reads only the segments recorded since the last one: a player asks every
 * target duration, and reading a 10-hour capture's 18,000 rows each time cost a core 13 ms.
 * A capture only appends, except when a resumed capture forgets segments whose bytes were lost
 * (SegmentLog.rewind): then the last segment known here is gone or changed (the bytes after a
 * lost segment move), and the list is read again whole.
 */
export class RecordedSegments {
  private readonly known = new Map<string, RecordedSegment[]>();

  constructor(private readonly captures: Pick<PartLog, 'segmentsFrom'>) {}

  /** Every recorded segment of the capture, in sequence order (a copy the caller may keep). */
  async of(livestreamId: string): Promise<RecordedSegment[]> {
    const list = this.known.get(livestreamId);
    const last = list?.at(-1);
    if (list !== undefined && last !== undefined) {
      const fresh = await this.captures.segmentsFrom(livestreamId, last.sequence);
      if (fresh[0] !== undefined && sameSegment(fresh[0], last)) {
        list.push(...fresh.slice(1));
        return list.slice();
      }
    }
    const all = await this.captures.segmentsFrom(livestreamId, 0);
    this.known.delete(livestreamId);
    if (this.known.size >= REMEMBERED) this.known.delete(this.known.keys().next().value as string);
    if (all.length > 0) this.known.set(livestreamId, all);
    return all.slice();
  }

  /** Drops the capture's list (its record is no longer live). */
  forget(livestreamId: string): void {
    this.known.delete(livestreamId);
  }
}

function sameSegment(a: RecordedSegment, b: RecordedSegment): boolean {
  return a.sequence === b.sequence && a.part === b.part && a.endOffset === b.endOffset && a.durationSeconds === b.durationSeconds;
}
