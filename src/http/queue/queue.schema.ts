import Type, { type Static } from 'typebox';
import { channelIdSchema } from '../channels/channel-id.schema.js';
import { LastCheckSchema, LivestreamRecordSchema, QueuedCaptureSchema } from '../livestreams/record.schema.js';

export const QueueQuerySchema = Type.Object({
  channelId: Type.Optional(channelIdSchema("only this channel's upcoming and live records")),
});
export type QueueQuery = Static<typeof QueueQuerySchema>;

/** A queued record: the record, the last look at its source while it is upcoming, and its figures while it is recorded. */
export const QueuedRecordSchema = Type.Object(
  { ...LivestreamRecordSchema.properties, lastCheck: LastCheckSchema, capture: QueuedCaptureSchema },
  { $id: 'QueuedRecord' },
);
export type QueuedRecord = Static<typeof QueuedRecordSchema>;

export const QueueResponseSchema = Type.Array(QueuedRecordSchema);
