import Type, { type Static } from 'typebox';

/** Messages one chat request returns at most, and by default. */
export const CHAT_MAX_LIMIT = 1000;
const CHAT_DEFAULT_LIMIT = 500;
/** Offsets a window may name: a day of waiting-room chat before the archive's start, 30 days after it. */
const EARLIEST = -86_400;
const LATEST = 30 * 86_400;

export const ChatQuerySchema = Type.Object(
  {
    from: Type.Optional(
      Type.Number({
        minimum: EARLIEST,
        maximum: LATEST,
        default: 0,
        description: `seconds from the archive's start, inclusive (negative: chat before it); default 0`,
      }),
    ),
    to: Type.Optional(
      Type.Number({
        minimum: EARLIEST,
        maximum: LATEST,
        default: LATEST,
        description: `seconds from the archive's start, exclusive, after "from"; default the end`,
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CHAT_MAX_LIMIT,
        default: CHAT_DEFAULT_LIMIT,
        description: `messages at most, 1 to ${CHAT_MAX_LIMIT}; default ${CHAT_DEFAULT_LIMIT}`,
      }),
    ),
  },
  { additionalProperties: false },
);

const ChatStateSchema = Type.Union([Type.Literal('capturing'), Type.Literal('ended'), Type.Literal('none'), Type.Literal('failed')], {
  description:
    'capturing: recorded now; ended: recorded; none: the stream has no chat (not from YouTube or Twitch, or its chat is off); failed: Kura gave up on it (what it kept is served)',
});

export const ChatMessageSchema = Type.Object({
  id: Type.String({ description: "the platform's id of the message (YouTube's, Twitch's)" }),
  offset: Type.Number({ description: "seconds from the archive's start (its first captured segment); negative before it" }),
  time: Type.String({ format: 'date-time', description: 'when the platform says it was sent' }),
  author: Type.Object({
    name: Type.String(),
    channelId: Type.String({ description: "the author's channel: YouTube's channel id, or twitch:{login}" }),
    badges: Type.Array(Type.Union([Type.Literal('owner'), Type.Literal('moderator'), Type.Literal('member'), Type.Literal('verified')])),
  }),
  text: Type.String({ description: "Unicode emoji as themselves; the channel's own emoji as their shortcut, Twitch's emotes as their name (see emojis)" }),
  emojis: Type.Optional(
    Type.Array(Type.Object({ shortcut: Type.String(), url: Type.String() }), {
      description: "the channel's own emoji (Twitch's emotes) in the text, with their image",
    }),
  ),
  paid: Type.Optional(
    Type.Object(
      {
        amount: Type.Number(),
        currency: Type.String({ description: 'ISO 4217 when known, else the symbol YouTube showed; bits for a Twitch cheer' }),
        text: Type.String({ description: 'the amount as shown, e.g. ¥1,000 or 100 bits' }),
      },
      { description: 'a Super Chat, or a Twitch cheer' },
    ),
  ),
});

export const ChatPageSchema = Type.Object({
  state: ChatStateSchema,
  archiveStart: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: "the wall-clock time of the archive's 0 s: when its first captured segment was live",
  }),
  messages: Type.Array(ChatMessageSchema),
  next: Type.Union([Type.Number(), Type.Null()], {
    description: 'when the window held more than `limit` messages: ask again with from=next (messages at that offset may repeat; their ids tell)',
  }),
});

export const ChatActivitySchema = Type.Object({
  state: ChatStateSchema,
  perMinute: Type.Array(Type.Integer(), { description: 'messages in each minute of the archive, minute 0 first' }),
});

export type ChatPageJson = Static<typeof ChatPageSchema>;
export type ChatMessageJson = Static<typeof ChatMessageSchema>;
export type ChatActivityJson = Static<typeof ChatActivitySchema>;
