// Decisions: docs/decisions/0045-live-chat-through-yt-dlp.md
import type { ChatBadge, ChatMessage } from '../../core/chat/chat.js';

/**
 * Reads yt-dlp's `live_chat` subtitle (`<name>.live_chat.json`): one JSON object a line, each
 * YouTube InnerTube action wrapped as a replay action would be —
 * `{"replayChatItemAction": {"actions": [ACTION]}, "videoOffsetTimeMsec": "…", "isLive": true}`
 * (yt_dlp/downloader/youtube_live_chat.py, parse_actions_live). Kura keeps chat messages and
 * Super Chats (`addChatItemAction` of a `liveChatTextMessageRenderer` or
 * `liveChatPaidMessageRenderer`) and places them by YouTube's `timestampUsec`: yt-dlp's
 * `videoOffsetTimeMsec` counts from when yt-dlp started, which a resumed capture changes.
 */

interface Thumbnails {
  thumbnails?: Array<{ url?: string; width?: number }>;
}
interface Run {
  text?: string;
  emoji?: { emojiId?: string; shortcuts?: string[]; isCustomEmoji?: boolean; image?: Thumbnails };
}
interface Badge {
  liveChatAuthorBadgeRenderer?: { icon?: { iconType?: string }; customThumbnail?: Thumbnails; tooltip?: string };
}
interface Renderer {
  id?: string;
  timestampUsec?: string;
  authorName?: { simpleText?: string };
  authorExternalChannelId?: string;
  authorBadges?: Badge[];
  message?: { runs?: Run[] };
  purchaseAmountText?: { simpleText?: string };
}

const ICON_BADGES: Record<string, ChatBadge> = { OWNER: 'owner', MODERATOR: 'moderator', VERIFIED: 'verified' };

/** The messages of one line of the file (none for other actions: tickers, deletions, banners, membership notices). */
export function readLiveChatLine(line: string): ChatMessage[] {
  let entry: { replayChatItemAction?: { actions?: unknown[] } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return []; // a line cut short by a crash of yt-dlp
  }
  return (entry.replayChatItemAction?.actions ?? []).flatMap((action) => {
    const item = (action as { addChatItemAction?: { item?: Record<string, Renderer | undefined> } }).addChatItemAction?.item;
    const text = item?.liveChatTextMessageRenderer;
    const paid = item?.liveChatPaidMessageRenderer;
    const message = readRenderer(text ?? paid, paid !== undefined);
    return message === null ? [] : [message];
  });
}

function readRenderer(renderer: Renderer | undefined, paid: boolean): ChatMessage | null {
  const micros = Number(renderer?.timestampUsec);
  if (renderer?.id === undefined || !Number.isFinite(micros)) return null;
  const emojis: ChatMessage['emojis'] = [];
  const text = (renderer.message?.runs ?? [])
    .map((run) => {
      if (run.emoji === undefined) return run.text ?? '';
      const shortcut = run.emoji.shortcuts?.[0] ?? '';
      if (!run.emoji.isCustomEmoji) return run.emoji.emojiId ?? shortcut;
      const url = largest(run.emoji.image);
      if (url !== undefined && !emojis.some((e) => e.shortcut === shortcut)) emojis.push({ shortcut, url });
      return shortcut;
    })
    .join('');
  const badges = (renderer.authorBadges ?? []).flatMap((badge): ChatBadge[] => {
    const b = badge.liveChatAuthorBadgeRenderer;
    if (b?.customThumbnail !== undefined) return ['member'];
    const known = ICON_BADGES[b?.icon?.iconType ?? ''];
    return known === undefined ? [] : [known];
  });
  return {
    id: renderer.id,
    sentAt: new Date(Math.floor(micros / 1000)),
    author: { name: renderer.authorName?.simpleText ?? '', channelId: renderer.authorExternalChannelId ?? '', badges },
    text,
    emojis,
    paid: paid ? readAmount(renderer.purchaseAmountText?.simpleText ?? '') : null,
  };
}

function largest(image: Thumbnails | undefined): string | undefined {
  const sorted = [...(image?.thumbnails ?? [])].sort((a, b) => (b.width ?? 0) - (a.width ?? 0));
  return sorted.find((t) => typeof t.url === 'string')?.url;
}

/** How YouTube writes currencies in an amount (for English, as yt-dlp asks): the symbol → ISO 4217. */
const CURRENCIES: Record<string, string> = {
  $: 'USD',
  US$: 'USD',
  CA$: 'CAD',
  A$: 'AUD',
  NZ$: 'NZD',
  HK$: 'HKD',
  NT$: 'TWD',
  MX$: 'MXN',
  R$: 'BRL',
  '¥': 'JPY',
  'JP¥': 'JPY',
  '£': 'GBP',
  '€': 'EUR',
  '₩': 'KRW',
  '₹': 'INR',
  '₱': 'PHP',
  '₪': 'ILS',
  '₫': 'VND',
};

/** "¥1,000" → 1000 JPY; "PLN 20.00" → 20 PLN; a symbol Kura does not know is kept as shown. */
export function readAmount(shown: string): { amount: number; currency: string; text: string } {
  const match = /^([^\d\s]*)\s*([\d.,]+)\s*([^\d\s]*)$/.exec(shown.trim());
  const symbol = (match?.[1] || match?.[3] || '').trim();
  const amount = Number((match?.[2] ?? '').replace(/,/g, ''));
  return { amount: Number.isFinite(amount) ? amount : 0, currency: CURRENCIES[symbol] ?? symbol, text: shown };
}
