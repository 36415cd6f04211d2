// Decisions: docs/decisions/0087-frames-only-while-looked-at.md
import type { FrameLooks } from '../../core/playback/frame-looks.js';
import type { ChangeFeed } from '../../shared/change-feed.js';

/**
 * The frame-looks loop of the catalogue: each look at a recording's recent frame (FRAME_LOOKS_CHANNEL,
 * from any api process, its payload the record's id) goes to the capture recording it here, if any.
 */
export function startFrameLooksLoop(context: { deps: { frameLooks: Pick<FrameLooks, 'heard'> } }, wake: { feed: ChangeFeed }): () => void {
  wake.feed.onChange((id) => {
    if (id !== undefined && id !== '') context.deps.frameLooks.heard(id);
  });
  return () => undefined;
}
