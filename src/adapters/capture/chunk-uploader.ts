// Decisions: docs/decisions/0036-chunks-to-store-and-resume.md
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { CHUNK_META, objectKeys } from '../../core/archive/object-keys.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { ChunkLog, SizedLocalChunk } from '../../core/capture/ports.js';
import { sleep } from './sleep.js';

/** A sealed local chunk: its file complete up to `endOffset` (exclusive, in part offsets), ready to upload. */
export type SealedChunk = SizedLocalChunk;

export interface ChunkUploaderDeps {
  store: ArchiveStore;
  captures: ChunkLog;
  livestreamId: string;
  workerId: string;
  log: (line: string) => Promise<void>;
  /** Called when the capture turned out to be another worker's: uploading stops. */
  onLeaseLost: () => void;
}

/** Waits between attempts at one chunk after the store's own retries failed: 2 s doubling to 30 s. */
const RETRY_FIRST_MS = 2000;
const RETRY_MAX_MS = 30_000;

/**
 * Uploads sealed chunks in the background, one at a time and in order — so the stored chunks
 * of a capture always form a prefix of its bytes — then notes each in PostgreSQL and deletes
 * the local file. A failed upload is tried again, without end, while the capture goes on
 * recording: the chunks wait on local disk, nothing is dropped.
 */
export class ChunkUploader {
  private readonly queue: SealedChunk[] = [];
  private running: Promise<void> | null = null;
  /** Aborted by `stop()`: no further attempt, and a wait between attempts ends at once. */
  private readonly halt = new AbortController();

  constructor(private readonly deps: ChunkUploaderDeps) {}

  enqueue(chunk: SealedChunk): void {
    this.queue.push(chunk);
    this.running ??= this.work().finally(() => (this.running = null));
  }

  /** Resolves once every chunk enqueued so far is stored (or uploading was stopped), or after `withinMs`. */
  async drain(withinMs?: number): Promise<void> {
    const timer = new AbortController();
    const timeUp =
      withinMs === undefined
        ? new Promise<never>(() => undefined)
        : sleep(withinMs, timer.signal).then(
            () => 'time up' as const,
            () => 'cancelled' as const,
          );
    try {
      while (this.running !== null) if ((await Promise.race([this.running, timeUp])) === 'time up') return;
    } finally {
      timer.abort(); // no timer left to keep the process up
    }
  }

  /** Stops after the chunk being uploaded; the others stay on local disk for a resumed capture. */
  stop(): void {
    this.halt.abort();
  }

  private get stopped(): boolean {
    return this.halt.signal.aborted;
  }

  private async work(): Promise<void> {
    for (let chunk = this.queue[0]; chunk !== undefined && !this.stopped; chunk = this.queue[0]) {
      await this.uploadWithRetries(chunk);
      this.queue.shift();
    }
  }

  private async uploadWithRetries(chunk: SealedChunk): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        return await this.upload(chunk);
      } catch (error) {
        const waitMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
        await this.deps
          .log(`chunk of part ${chunk.part} at byte ${chunk.startOffset} not stored (${(error as Error).message}); trying again in ${waitMs / 1000} s`)
          .catch(() => undefined);
        await sleep(waitMs, this.halt.signal).catch(() => undefined);
      }
    }
  }

  private async upload(chunk: SealedChunk): Promise<void> {
    const { store, captures, livestreamId, workerId } = this.deps;
    const key = objectKeys.captureChunk(livestreamId, chunk.part, chunk.startOffset, randomBytes(4).toString('hex'));
    await store.put(key, chunk.path, CHUNK_META);
    const stored = { part: chunk.part, startOffset: chunk.startOffset, endOffset: chunk.endOffset, key };
    if (!(await captures.recordChunk(livestreamId, workerId, stored))) {
      await store.delete(key); // the capture is another worker's now: its own chunks are the truth
      this.stop();
      this.deps.onLeaseLost();
      return;
    }
    await rm(chunk.path, { force: true });
  }
}
