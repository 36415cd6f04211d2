// Decisions: docs/decisions/0136-separate-audio-renditions-as-lanes.md
import type HLS from 'hls-parser';
import type { AudioLane } from '../../core/sources/ports.js';

/** Which separate audio renditions a capture records (KURA_HLS_AUDIO): the one a player plays by default, or every language. */
export type AudioChoice = 'default' | 'all';

/** An `#EXT-X-MEDIA:TYPE=AUDIO` rendition of a variant's audio group; `url` null when its audio is in the variant's own segments. */
export interface AudioRendition {
  url: string | null;
  language: string | null;
  name: string;
  isDefault: boolean;
  autoselect: boolean;
}

/** The audio renditions of a parsed variant's group (hls-parser resolves `AUDIO=` to its group), URIs made absolute against the master's URL. */
export function renditionsOf(variant: HLS.types.Variant, masterUrl: string): AudioRendition[] {
  return variant.audio.map((rendition) => ({
    url: rendition.uri === undefined ? null : new URL(rendition.uri, masterUrl).href,
    language: rendition.language ?? null,
    name: rendition.name,
    isDefault: rendition.isDefault,
    autoselect: rendition.autoselect,
  }));
}

/**
 * The renditions to record beside the variant's video, as streamlink picks external audio: with
 * `default`, the group's `DEFAULT=YES` rendition, else its first `AUTOSELECT=YES` one, else the
 * first listed; none when that one has no URI (its audio comes with the video's segments). With
 * `all`, every rendition with a URI, in the order listed. None for a variant without a group.
 */
export function chooseAudio(renditions: readonly AudioRendition[], choice: AudioChoice): AudioLane[] {
  const lane = ({ url, language, name }: AudioRendition & { url: string }): AudioLane => ({ url, language, name });
  if (choice === 'all') {
    const byUrl = new Map<string, AudioLane>();
    for (const r of renditions) if (r.url !== null && !byUrl.has(r.url)) byUrl.set(r.url, lane({ ...r, url: r.url }));
    return [...byUrl.values()];
  }
  const chosen = renditions.find((r) => r.isDefault) ?? renditions.find((r) => r.autoselect) ?? renditions[0];
  return chosen === undefined || chosen.url === null ? [] : [lane({ ...chosen, url: chosen.url })];
}
