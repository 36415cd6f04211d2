// Decisions: docs/decisions/0053-follow-signals.md
import type { ChannelResolver } from '../../core/follows/ports.js';
import { runYtDlp } from '../ytdlp/run-ytdlp.js';
import { failureInWords, YtDlpFailure, troubleOf } from '../ytdlp/ytdlp-trouble.js';
import type { YtDlpProgram } from '../ytdlp/ytdlp-program.js';

export interface YouTubeChannelResolverOptions {
  /** The yt-dlp to run (YTDLP_PATH; its cookies only for a run YouTube refuses without). */
  ytdlp: YtDlpProgram;
}

const CHANNEL_ID = /^UC[A-Za-z0-9_-]{22}$/;
const HANDLE = /^@[^\s/?#]+$/u;

/**
 * A channel id or handle → the channel's id and current name, through one yt-dlp run that lists
 * no video (`--playlist-items 0`). Throws a YtDlpFailure with what YouTube did and yt-dlp's reason,
 * or an Error when the input is neither.
 */
export function createYouTubeChannelResolver({ ytdlp }: YouTubeChannelResolverOptions): Pick<ChannelResolver, 'resolveYouTube'> {
  return {
    async resolveYouTube(idOrHandle) {
      const target = idOrHandle.trim();
      if (!CHANNEL_ID.test(target) && !HANDLE.test(target)) throw new Error(`${idOrHandle} is neither a YouTube channel id (UC…) nor a handle (@name)`);
      const url = target.startsWith('@') ? `https://www.youtube.com/${encodeURI(target)}` : `https://www.youtube.com/channel/${target}`;
      const { json } = await runYtDlp(ytdlp, ['-J', '--flat-playlist', '--playlist-items', '0', '--', url]).catch((error: unknown) => {
        throw new YtDlpFailure(troubleOf(error), failureInWords(error));
      });
      const info = (json ?? {}) as { channel_id?: unknown; channel?: unknown; uploader?: unknown };
      if (typeof info.channel_id !== 'string' || !CHANNEL_ID.test(info.channel_id)) throw new Error(`yt-dlp named no channel id for ${target}`);
      const name = typeof info.channel === 'string' && info.channel !== '' ? info.channel : typeof info.uploader === 'string' ? info.uploader : info.channel_id;
      return { channelId: info.channel_id, channelName: name };
    },
  };
}
