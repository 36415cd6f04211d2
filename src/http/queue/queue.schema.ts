import Type, { type Static } from 'typebox';
import { channelIdSchema } from '../channels/channel-id.schema.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';

export const QueueQuerySchema = Type.Object({
  channelId: Type.Optional(channelIdSchema("only this channel's upcoming and live records")),
});
export type QueueQuery = Static<typeof QueueQuerySchema>;

export const QueueResponseSchema = Type.Array(LivestreamRecordSchema);
