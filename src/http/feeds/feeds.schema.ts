import Type, { type Static } from 'typebox';
import { channelIdSchema } from '../channels/channel-id.schema.js';

/** A feed token: a private instance's feeds and downloads take one in the URL (KURA_PUBLIC_READ=false). */
const feedToken = Type.Optional(
  Type.String({ maxLength: 100, description: 'On a private instance: the caller’s feed token (POST /api/user/feed-token), instead of a login' }),
);

export const FeedTokenQuerySchema = Type.Object({ feed_token: feedToken });

export const FeedQuerySchema = Type.Object({
  channelId: Type.Optional(channelIdSchema("only this channel's streams (an unknown channel has an empty feed)")),
  feed_token: feedToken,
});
export type FeedQuery = Static<typeof FeedQuerySchema>;

/** The answers of a feed route besides problems: the Atom document, or 304 to a reader that has it. */
export const FeedResponses = {
  200: {
    description: 'An Atom 1.0 feed (RFC 4287), with ETag and Last-Modified',
    content: { 'application/atom+xml': { schema: Type.String() } },
  },
  304: Type.Null({ description: 'Not modified: the feed is still the one If-None-Match or If-Modified-Since names' }),
};
