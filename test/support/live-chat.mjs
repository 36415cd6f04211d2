// The live chat the yt-dlp stand-in (bin/yt-dlp-stand-in.mjs) writes, in yt-dlp's own format:
// yt_dlp/downloader/youtube_live_chat.py (parse_actions_live) wraps each InnerTube action of
// `get_live_chat` as `{"replayChatItemAction": {"actions": [ACTION]}, "videoOffsetTimeMsec": "…",
// "isLive": true}`, one a line. The actions carry YouTube's renderers as the web client receives
// them (addChatItemAction of liveChatTextMessageRenderer / liveChatPaidMessageRenderer with
// authorBadges, message runs of text and emoji, timestampUsec; a Super Chat's ticker). Message n
// is sent at n × everyMs ms since the epoch, so a test knows which messages a moment holds.

export const OWNER_CHANNEL = 'UCfixture0000000000000001';

/** Who sends message n, and what kind it is: every 11th the channel's owner, every 7th a moderator, every 5th a member; every 13th a Super Chat. */
export function chatMessage(n, everyMs) {
  const owner = n % 11 === 0;
  const badges = owner ? ['owner'] : [...(n % 7 === 0 ? ['moderator'] : []), ...(n % 5 === 0 ? ['member'] : [])];
  const paid = n % 13 === 0 ? (n % 26 === 0 ? { amount: 5, currency: 'USD', text: '$5.00' } : { amount: 1000, currency: 'JPY', text: '¥1,000' }) : null;
  return {
    id: Buffer.from(`stand-in chat message ${n}`).toString('base64url'),
    sentAt: n * everyMs,
    name: owner ? 'Fixture Channel' : `Viewer ${n % 17}`,
    channelId: owner ? OWNER_CHANNEL : `UCviewer${String(n % 17).padStart(16, '0')}`,
    badges,
    text: `message ${n} 🎤${n % 5 === 0 ? ' :_wave:' : ''}`,
    paid,
  };
}

const badge = {
  owner: { liveChatAuthorBadgeRenderer: { icon: { iconType: 'OWNER' }, tooltip: 'Owner', accessibility: { accessibilityData: { label: 'Owner' } } } },
  moderator: {
    liveChatAuthorBadgeRenderer: { icon: { iconType: 'MODERATOR' }, tooltip: 'Moderator', accessibility: { accessibilityData: { label: 'Moderator' } } },
  },
  member: {
    liveChatAuthorBadgeRenderer: {
      customThumbnail: {
        thumbnails: [
          { url: 'https://yt3.ggpht.com/member-badge=s16-c-k', width: 16, height: 16 },
          { url: 'https://yt3.ggpht.com/member-badge=s32-c-k', width: 32, height: 32 },
        ],
      },
      tooltip: 'Member (6 months)',
      accessibility: { accessibilityData: { label: 'Member (6 months)' } },
    },
  },
};

/** The InnerTube actions of message n (each a line of yt-dlp's file once wrapped): the message, and a Super Chat's ticker. */
export function chatActions(n, chat) {
  const m = chatMessage(n, chat.everyMs);
  const emojiUrl = chat.emojiUrl ?? 'http://127.0.0.1:9/wave.png';
  const runs = [
    { text: `message ${n} ` },
    {
      emoji: {
        emojiId: '🎤',
        shortcuts: [':microphone:'],
        searchTerms: ['microphone'],
        image: {
          thumbnails: [{ url: 'https://www.youtube.com/s/gaming/emoji/7ff574f2/emoji_u1f3a4.svg' }],
          accessibility: { accessibilityData: { label: '🎤' } },
        },
      },
    },
    ...(n % 5 === 0
      ? [
          { text: ' ' },
          {
            emoji: {
              emojiId: `${OWNER_CHANNEL}/wave`,
              shortcuts: [':_wave:', ':wave:'],
              searchTerms: ['_wave', 'wave'],
              image: {
                thumbnails: [
                  { url: `${emojiUrl}?s=24`, width: 24, height: 24 },
                  { url: emojiUrl, width: 48, height: 48 },
                ],
                accessibility: { accessibilityData: { label: ':_wave:' } },
              },
              isCustomEmoji: true,
            },
          },
        ]
      : []),
  ];
  const common = {
    id: m.id,
    timestampUsec: String(m.sentAt * 1000),
    authorName: { simpleText: m.name },
    authorPhoto: { thumbnails: [{ url: 'https://yt4.ggpht.com/photo=s32-c-k', width: 32, height: 32 }] },
    authorExternalChannelId: m.channelId,
    contextMenuEndpoint: {
      commandMetadata: { webCommandMetadata: { ignoreNavigation: true } },
      liveChatItemContextMenuEndpoint: { params: 'Q2g0S0hBb2FRMGhMVTBaR1Zt' },
    },
    contextMenuAccessibility: { accessibilityData: { label: 'Chat actions' } },
    ...(m.badges.length > 0 ? { authorBadges: m.badges.map((b) => badge[b]) } : {}),
  };
  const item =
    m.paid === null
      ? { liveChatTextMessageRenderer: { message: { runs }, ...common } }
      : {
          liveChatPaidMessageRenderer: {
            ...common,
            purchaseAmountText: { simpleText: m.paid.text },
            message: { runs },
            headerBackgroundColor: 4278239141,
            headerTextColor: 4278190080,
            bodyBackgroundColor: 4280150454,
            bodyTextColor: 4278190080,
            authorNameTextColor: 2315255808,
            timestampColor: 2147483648,
            isV2Style: true,
          },
        };
  const actions = [{ clickTrackingParams: 'CAEQl98BIhMIpY6o', addChatItemAction: { item } }];
  if (m.paid !== null) {
    actions.push({
      clickTrackingParams: 'CAEQl98BIhMIpY6o',
      addLiveChatTickerItemAction: {
        item: {
          liveChatTickerPaidMessageItemRenderer: {
            id: m.id,
            amountTextColor: 4278190080,
            startBackgroundColor: 4280150454,
            endBackgroundColor: 4278239141,
            durationSec: 120,
            fullDurationSec: 120,
            showItemEndpoint: { showLiveChatItemEndpoint: { renderer: item } },
            authorExternalChannelId: m.channelId,
          },
        },
        durationSec: '120',
      },
    });
  }
  return actions;
}
