import Type, { type Static } from 'typebox';
import { channelIdSchema } from '../channels/channel-id.schema.js';
import { LastCheckSchema, LivestreamRecordSchema } from '../livestreams/record.schema.js';

export const QueueQuerySchema = Type.Object({
  channelId: Type.Optional(channelIdSchema("only this channel's upcoming and live records")),
});
export type QueueQuery = Static<typeof QueueQuerySchema>;

/** A queued record: the record, and the last look at its source while it is upcoming. */
export const QueuedRecordSchema = Type.Object({ ...LivestreamRecordSchema.properties, lastCheck: LastCheckSchema }, { $id: 'QueuedRecord' });
export type QueuedRecord = Static<typeof QueuedRecordSchema>;

export const QueueResponseSchema = Type.Array(QueuedRecordSchema);
