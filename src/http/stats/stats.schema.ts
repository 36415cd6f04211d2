import Type, { type Static } from 'typebox';

const Space = {
  freeBytes: Type.Integer({ description: 'bytes Kura may still write there (statfs: blocks available to an unprivileged writer)' }),
  totalBytes: Type.Integer({ description: 'the size of the filesystem' }),
};

export const DiskSchema = Type.Object(
  {
    archive: Type.Union([
      Type.Object({
        storage: Type.Literal('local'),
        ...Space,
        daysUntilFull: Type.Union([Type.Integer(), Type.Null()], {
          description: 'whole days until free space is filled at the last 30 days’ growth; null with no growth',
        }),
      }),
      Type.Object({ storage: Type.Literal('s3') }, { description: 'an S3 bucket has no free space to read: no figures' }),
    ]),
    archivedBytesLast30Days: Type.Integer({ description: 'bytes of archives finished in the last 30 days: the growth' }),
    spools: Type.Array(Type.Object({ workerId: Type.String(), ...Space, reportedAt: Type.String({ format: 'date-time' }) }), {
      description:
        'each worker’s spool as the worker last reported it (when its free space moved by 0.1 % of the disk, and at least every 30 minutes); a worker silent for 35 minutes is left out',
    }),
    low: Type.Array(
      Type.Object({
        place: Type.Union([Type.Literal('archive'), Type.Literal('spool')]),
        workerId: Type.Union([Type.String(), Type.Null()], { description: 'whose spool; null for the archive storage' }),
        ...Space,
        freePercent: Type.Number(),
      }),
      { description: 'places with less than 10 % free: what the admin banner shows' },
    ),
  },
  { description: 'admins only: the space of the archive storage and of the workers’ spools' },
);

export const StatsSchema = Type.Object({
  videoAmount: Type.Integer({ description: 'archived and queued livestreams (failed excluded)' }),
  totalFileSize: Type.Integer({ description: 'bytes' }),
  totalLength: Type.Integer({ description: 'seconds' }),
  storageBillPerMonth: Type.Number({ description: 'USD: totalFileSize / 10^9 × usdPerGbPerMonth' }),
  s3BillPerMonth: Type.Number({ description: 'same as storageBillPerMonth, for clients of the original interface' }),
  usdPerGbPerMonth: Type.Number(),
  uniqueChannels: Type.Integer({ description: 'channels with at least one archived or queued livestream' }),
  disk: Type.Optional(DiskSchema),
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
export type DiskStats = Static<typeof DiskSchema>;
export type GrowthPoint = Static<typeof GrowthSchema>[number];
