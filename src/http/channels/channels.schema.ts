import Type, { type Static } from 'typebox';
import { HISTORY_DEFAULTS } from '../../core/records/list-history.js';
import { PageQueryProperties } from '../history/history.schema.js';
import { channelIdSchema } from './channel-id.schema.js';

export const ChannelsQuerySchema = Type.Object(PageQueryProperties);
export type ChannelsQuery = Static<typeof ChannelsQuerySchema>;

/** The query as the use case takes it, the history's defaults filling what it leaves out. */
export function toChannelsRequest(query: ChannelsQuery): { page: number; limit: number } {
  return { page: query.page ?? HISTORY_DEFAULTS.page, limit: query.limit ?? HISTORY_DEFAULTS.limit };
}

export const ChannelParamsSchema = Type.Object({ channelId: channelIdSchema('the channel') });

const count = (description: string) => Type.Integer({ minimum: 0, description });

export const ChannelSchema = Type.Object(
  {
    channelId: Type.String(),
    channelName: Type.String({ description: "the name on the channel's most recently scheduled record" }),
    archives: count('finished records (failed ones are not archives)'),
    upcoming: count('upcoming and live records'),
    totalFileSize: count('bytes of the finished records'),
    totalLength: count('seconds of the finished records'),
    latestArchive: Type.Union(
      [
        Type.Object({ id: Type.String(), title: Type.String(), scheduledStart: Type.String({ format: 'date-time', description: 'ISO 8601, UTC (Z)' }) }),
        Type.Null(),
      ],
      { description: 'the most recently scheduled finished record; null while the channel has none' },
    ),
    followed: Type.Boolean({ description: 'Kura follows the channel (GET /api/follows): listed even before its first record' }),
  },
  { $id: 'Channel' },
);
export type Channel = Static<typeof ChannelSchema>;

export const ChannelListSchema = Type.Array(ChannelSchema);
