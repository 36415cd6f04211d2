// Decisions: docs/decisions/0102-frames-only-while-looked-at.md

/**
 * The looks at recordings' recent frames that this worker hears of (from any api process), handed
 * to the capture recording each: `keepLiveFrame` watches its own record's, and makes frames only
 * while someone looks.
 */
export interface FrameRequests {
  /** Someone asked for the recent frame of record `id`. */
  heard(id: string): void;
  /** Calls `onLook` at each look at record `id`'s frame until the returned function is called. */
  watch(id: string, onLook: () => void): () => void;
}

/** The looks of one process, in memory: a look at a record no capture here watches is nobody's. */
export function createFrameRequests(): FrameRequests {
  const watchers = new Map<string, () => void>();
  return {
    heard(id) {
      watchers.get(id)?.();
    },
    watch(id, onLook) {
      watchers.set(id, onLook);
      return () => {
        if (watchers.get(id) === onLook) watchers.delete(id);
      };
    },
  };
}
