// Decisions: docs/decisions/0019-submission.md
import type { Platform } from '../../core/vocabulary.js';
import type { Inspection, StreamSource } from '../../core/sources/ports.js';
import { FetchError, type Fetcher } from './http-fetch.js';

/** The operator's rules for what users may submit (KURA_SOURCES, KURA_ALLOWED_CHANNELS). */
export interface SubmissionRules {
  /** Source kinds users may submit. */
  sources: readonly Platform[];
  /** Channel ids users may submit from; empty allows every channel. */
  allowedChannels: readonly string[];
}

/**
 * The source user submissions (and `/api/validate`) are judged by: the sources' own verdict, then
 * the operator's rules. An HLS URL is fetched once through the SSRF-safe fetcher, so a name that
 * resolves to a private address or a redirect to one is refused now, with the reason, instead of
 * failing the record later; a playlist that does not answer yet is accepted (the watch job waits).
 */
export function createSubmissionSource(source: StreamSource, rules: SubmissionRules, fetcher: Fetcher): StreamSource {
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
    if (inspection.platform === 'hls') {
      const refused = await refusal(fetcher, inspection.canonicalUrl);
      if (refused !== null) return { kind: 'rejected', reason: `Kura will not fetch this source: ${refused}.` };
    }
    return inspection;
  };
  return { ...source, inspect: async (url) => judge(await source.inspect(url)) };
}

async function refusal(fetcher: Fetcher, url: string): Promise<string | null> {
  try {
    await fetcher.text(url);
    return null;
  } catch (error) {
    return error instanceof FetchError && error.refused ? error.message : null;
  }
}
