import type { ChatMessage } from './chat.js';
import type { ChatLog, ChatSource } from './ports.js';
import type { LivestreamRepo } from '../livestream/ports.js';

export interface ChatDeps {
  livestreams: LivestreamRepo;
  chats: ChatLog;
  chatSource: ChatSource;
}

export interface ChatWorker {
  workerId: string;
  staleAfterSeconds: number;
  /** Aborted when the worker stops: the chat is handed over (its lease given up), not ended. */
  signal: AbortSignal;
  /** How often arrived messages are stored (a crash loses at most this much of the chat). */
  flushMs: number;
}

/**
 * Captures the live chat of a YouTube stream while its video is captured, as `workerId`: stores
 * its messages as they arrive (each batch renews the chat's lease) and stops when the video
 * capture ends, when the chat ends, or when the stream proves to have none. Resuming a chat
 * stores only the messages not stored yet. Returns quietly when the record has no chat to
 * capture or another live worker holds it. Throws (a retry, on any worker) when the chat cannot
 * be read or this worker stops, having stored what arrived and given the lease up; that never
 * touches the record or its video capture.
 */
export async function captureChat(deps: ChatDeps, id: string, worker: ChatWorker): Promise<void> {
  const record = await deps.livestreams.findById(id);
  if (record === null || record.status !== 'live' || record.platform !== 'youtube') return;
  if (!(await deps.chats.claim(id, worker.workerId, worker.staleAfterSeconds))) return;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  worker.signal.addEventListener('abort', onAbort);
  let pending: ChatMessage[] = [];
  // read after awaits that change it: an object, so TypeScript does not narrow it away
  const lease: { held: 'capturing' | 'over' | 'lost' } = { held: 'capturing' };
  let lastStored = Date.now();
  let flushing: Promise<void> = Promise.resolve();
  // one store at a time, in order; a batch that fails to store waits for the next
  const flush = () => {
    flushing = flushing.then(async () => {
      if (lease.held === 'lost') return;
      const batch = pending;
      pending = [];
      try {
        lease.held = await deps.chats.append(id, worker.workerId, batch);
        lastStored = Date.now();
      } catch (error) {
        pending = batch.concat(pending);
        throw error;
      }
      if (lease.held !== 'capturing') stop.abort();
    });
    const done = flushing;
    flushing = flushing.catch(() => undefined);
    return done;
  };
  // a quiet chat still renews its lease (and sees the video capture end) a few times per lease
  const renewMs = (worker.staleAfterSeconds * 1000) / 3;
  const timer = setInterval(() => {
    if (pending.length > 0 || Date.now() - lastStored >= renewMs) flush().catch(() => undefined);
  }, worker.flushMs);
  let end: Awaited<ReturnType<ChatSource['follow']>>;
  try {
    end = await deps.chatSource.follow(record.sourceUrl, (message) => pending.push(message), stop.signal);
  } catch (error) {
    await settle(deps, id, worker, () => flush(), (error as Error).message);
    throw error;
  } finally {
    clearInterval(timer);
    worker.signal.removeEventListener('abort', onAbort);
  }
  if (worker.signal.aborted) {
    await settle(deps, id, worker, () => flush());
    // failed, so pg-boss hands the job to another worker (the lease is free for it)
    throw new Error(`worker ${worker.workerId} stopped; the chat continues on the next worker`);
  }
  await flush();
  if (lease.held === 'lost') return;
  await deps.chats.finish(id, end === 'none' && lease.held === 'capturing' ? 'none' : 'ended');
}

/** Stores what arrived and gives the lease up, so the next attempt (any worker's) resumes at once. */
async function settle(deps: ChatDeps, id: string, worker: ChatWorker, flush: () => Promise<void>, why?: string): Promise<void> {
  try {
    await flush();
  } finally {
    await deps.chats.release(id, worker.workerId, why);
  }
}
