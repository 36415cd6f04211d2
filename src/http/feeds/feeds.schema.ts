import Type, { type Static } from 'typebox';
import { channelIdSchema } from '../channels/channel-id.schema.js';

export const FeedQuerySchema = Type.Object({
  channelId: Type.Optional(channelIdSchema("only this channel's streams (an unknown channel has an empty feed)")),
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
