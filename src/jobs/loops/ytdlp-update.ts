import type { BackgroundLog } from '../job-work.js';
import { startEvery } from '../runtime/every.js';

/** How an update of yt-dlp went (adapters/ytdlp/ytdlp-updater.ts does it). */
export type YtDlpUpdateOutcome = { updated: boolean; before: string | null; after: string | null } | { failed: string; before: string | null };

/** Updates the yt-dlp Kura installed; null where yt-dlp is the operator's own (or updates are off). */
export interface YtDlpUpdating {
  /** Whether the last update is older than this many seconds. */
  due(everySeconds: number): Promise<boolean>;
  update(): Promise<YtDlpUpdateOutcome>;
}

/**
 * The ytdlp-update loop of the catalogue: at start and on its timer, updates the yt-dlp Kura
 * installed when its last update is a period old, and logs what changed; a failed update keeps the
 * version there was. Nothing where there is no updater (KURA_YTDLP_AUTO_UPDATE=false, or a yt-dlp
 * of the operator's own).
 */
export function startYtDlpUpdateLoop(
  context: { ytdlpUpdates?: YtDlpUpdating | null; log: BackgroundLog },
  wake: { everySeconds: number },
): () => Promise<void> {
  const updater = context.ytdlpUpdates;
  if (updater === undefined || updater === null) return async () => undefined;
  const look = async () => {
    if (!(await updater.due(wake.everySeconds))) return;
    const outcome = await updater.update();
    if ('failed' in outcome)
      context.log.warn({ kept: outcome.before }, `yt-dlp could not be updated (${outcome.before ?? 'no version'} kept): ${outcome.failed}`);
    else if (outcome.updated)
      context.log.info({ before: outcome.before, after: outcome.after }, `yt-dlp updated: ${outcome.before ?? 'none'} → ${outcome.after ?? 'none'}`);
    else context.log.info({ version: outcome.after }, `yt-dlp is current: ${outcome.after ?? 'unknown version'}`);
  };
  // one look at a time, and the stop waits for the look in flight
  return startEvery(look, {
    everySeconds: wake.everySeconds,
    onError: (error) => context.log.warn({ err: error }, `yt-dlp could not be updated: ${error.message}`),
  });
}
