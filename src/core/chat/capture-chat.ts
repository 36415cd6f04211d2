// Decisions: docs/decisions/0113-chat-capture-job.md, docs/decisions/0137-twitch-chat-over-irc.md
import type { ChatMessage } from './chat.js';
import type { ChatLog, ChatSource } from './ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import { hasLiveChat, type ChatPlatform } from '../vocabulary.js';

export interface ChatDeps {
  livestreams: LivestreamRepo;
  chats: ChatLog;
  /** Each platform's chat, read its own way (YouTube's through yt-dlp, Twitch's over IRC). */
  chatSources: Record<ChatPlatform, ChatSource>;
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
 * Captures the live chat of a stream (YouTube's, Twitch's: hasLiveChat) while its video is captured, as `workerId`: stores
 * its messages as they arrive (each batch renews the chat's lease) and stops when the video
 * capture ends, when the chat ends, or when the stream proves to have none. Resuming a chat
 * stores only the messages not stored yet. Returns quietly when the record has no chat to
 * capture or another live worker holds it. Throws (a retry, on any worker) when the chat cannot
 * be read or this worker stops, having stored what arrived and given the lease up; that never
 * touches the record or its video capture.
 */
export async function captureChat(deps: ChatDeps, id: string, worker: ChatWorker): Promise<void> {
  const record = await deps.livestreams.findById(id);
  if (record === null || record.status !== 'live' || !hasLiveChat(record.platform)) return;
  const chatSource = deps.chatSources[record.platform];
  if (!(await deps.chats.claim(id, worker.workerId, worker.staleAfterSeconds))) return;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  worker.signal.addEventListener('abort', onAbort);
  const batches = storeInBatches(deps.chats, id, worker, () => stop.abort());
  let end: Awaited<ReturnType<ChatSource['follow']>>;
  try {
    end = await chatSource.follow(record.sourceUrl, batches.push, stop.signal);
  } catch (error) {
    await settle(deps, id, worker, batches.flush, (error as Error).message);
    throw error;
  } finally {
    batches.close();
    worker.signal.removeEventListener('abort', onAbort);
  }
  if (worker.signal.aborted) {
    await settle(deps, id, worker, batches.flush);
    // failed, so pg-boss hands the job to another worker (the lease is free for it)
    throw new Error(`worker ${worker.workerId} stopped; the chat continues on the next worker`);
  }
  await batches.flush();
  if (batches.held() === 'lost') return;
  await deps.chats.finish(id, end === 'none' && batches.held() === 'capturing' ? 'none' : 'ended');
}

/**
 * Stores the messages pushed every `flushMs`, one store at a time and in order (a batch that
 * fails to store waits for the next); a quiet chat still renews its lease a few times per lease,
 * which also tells when the video capture ended. `onOver` is called once the chat should stop.
 */
function storeInBatches(chats: ChatLog, id: string, worker: ChatWorker, onOver: () => void) {
  let pending: ChatMessage[] = [];
  let held: 'capturing' | 'over' | 'lost' = 'capturing';
  let lastStored = Date.now();
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const done = flushing.then(async () => {
      if (held === 'lost') return;
      const batch = pending;
      pending = [];
      try {
        held = await chats.append(id, worker.workerId, batch);
        lastStored = Date.now();
      } catch (error) {
        pending = batch.concat(pending);
        throw error;
      }
      if (held !== 'capturing') onOver();
    });
    flushing = done.catch(() => undefined);
    return done;
  };
  const renewMs = (worker.staleAfterSeconds * 1000) / 3;
  const timer = setInterval(() => {
    if (pending.length > 0 || Date.now() - lastStored >= renewMs) flush().catch(() => undefined);
  }, worker.flushMs);
  return {
    push: (message: ChatMessage) => void pending.push(message),
    flush,
    held: () => held,
    close: () => clearInterval(timer),
  };
}

/** Stores what arrived and gives the lease up, so the next attempt (any worker's) resumes at once. */
async function settle(deps: ChatDeps, id: string, worker: ChatWorker, flush: () => Promise<void>, why?: string): Promise<void> {
  try {
    await flush();
  } finally {
    await deps.chats.release(id, worker.workerId, why);
  }
}
