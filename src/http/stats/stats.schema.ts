import Type, { type Static } from 'typebox';

export const StatsSchema = Type.Object({
  videoAmount: Type.Integer({ description: 'archived and queued livestreams (failed excluded)' }),
  totalFileSize: Type.Integer({ description: 'bytes' }),
  totalLength: Type.Integer({ description: 'seconds' }),
  storageBillPerMonth: Type.Number({ description: 'USD: totalFileSize / 10^9 × usdPerGbPerMonth' }),
  s3BillPerMonth: Type.Number({ description: 'same as storageBillPerMonth, for clients of the original interface' }),
  usdPerGbPerMonth: Type.Number(),
  uniqueChannels: Type.Integer({ description: 'channels with at least one archived or queued livestream' }),
});

export const GrowthSchema = Type.Array(
  Type.Object({
    month: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'YYYY-MM (UTC) of the scheduled start' }),
    count: Type.Integer({ description: 'finished livestreams of that month' }),
    fileSizeBytes: Type.Integer({ description: 'their stored bytes' }),
    lengthSeconds: Type.Integer({ description: 'their length in seconds' }),
    totalCount: Type.Integer({ description: 'finished livestreams up to and including that month' }),
    totalFileSizeBytes: Type.Integer({ description: 'their stored bytes up to and including that month' }),
  }),
  { $id: 'StatsGrowth', description: 'months without a finished livestream are left out; oldest first' },
);

export type Stats = Static<typeof StatsSchema>;
export type GrowthPoint = Static<typeof GrowthSchema>[number];
