// Decisions: docs/decisions/0019-submission.md
import type { Platform } from '../../core/vocabulary.js';
import type { Inspection, StreamSource } from '../../core/sources/ports.js';

/** The operator's rules for what users may submit (KURA_SOURCES, KURA_ALLOWED_CHANNELS). */
export interface SubmissionRules {
  /** Source kinds users may submit. */
  sources: readonly Platform[];
  /** Channel ids users may submit from; empty allows every channel. */
  allowedChannels: readonly string[];
}

/**
 * The source user submissions (and `/api/validate`) are judged by: the sources' own verdict (an
 * HLS source reads the playlist through the SSRF-safe fetcher, so a private address, a redirect
 * to one or a playlist that cannot be read is refused now, with the reason), then the operator's rules.
 */
export function createSubmissionSource(source: StreamSource, rules: SubmissionRules): StreamSource {
  const channels = new Set(rules.allowedChannels);
  const judge = async (inspection: Inspection): Promise<Inspection> => {
    if (inspection.kind === 'rejected') return inspection;
    if (!rules.sources.includes(inspection.platform)) {
      return { kind: 'rejected', reason: `This instance does not take ${inspection.platform} streams (it takes ${rules.sources.join(', ') || 'none'}).` };
    }
    const channelId = inspection.details?.channelId || new URL(inspection.canonicalUrl).hostname;
    if (channels.size > 0 && !channels.has(channelId)) {
      return { kind: 'rejected', reason: `This instance only archives the channels its operator lists; ${channelId} is not one of them.` };
    }
    return inspection;
  };
  return { ...source, inspect: async (url) => judge(await source.inspect(url)) };
}
