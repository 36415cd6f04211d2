// Decisions: docs/decisions/0102-frames-only-while-looked-at.md
import type { FrameRequests } from '../../core/playback/frame-requests.js';
import type { ChangeFeed } from '../../shared/change-feed.js';

/**
 * The frame-requests loop of the catalogue: each look at a recording's recent frame (FRAME_REQUESTS_CHANNEL,
 * from any api process, its payload the record's id) goes to the capture recording it here, if any.
 */
export function startFrameRequestsLoop(context: { deps: { frameRequests: Pick<FrameRequests, 'heard'> } }, wake: { feed: ChangeFeed }): () => void {
  wake.feed.onChange((id) => {
    if (id !== undefined && id !== '') context.deps.frameRequests.heard(id);
  });
  return () => undefined;
}
