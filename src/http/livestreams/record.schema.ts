// Decisions: docs/decisions/0004-route-schemas-define-the-api.md
import { MomentSchema } from '../moments/moments.schema.js';
import Type, { type Static } from 'typebox';
import { CAPTURE_STATES } from '../../core/capture/capture-lifecycle.js';
import { INTEGRITY_STATES } from '../../core/vocabulary.js';
import { LIVESTREAM_ID_PATTERN, LIVESTREAM_STATUSES, PLATFORMS } from '../../core/vocabulary.js';

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC (Z)' });

/** The `{id}` path parameter of every route about one record. */
export const LivestreamIdParamsSchema = Type.Object({
  id: Type.String({ pattern: LIVESTREAM_ID_PATTERN, description: '1–64 letters, digits, "_" or "-"' }),
});

/** A record as history, queue and search return it (the shape of the original interface, docs/api.md). */
export const LivestreamRecordSchema = Type.Object(
  {
    id: Type.String(),
    submitters: Type.Array(Type.String(), { description: '"provider/userId", in submission order' }),
    scheduledStart: Timestamp,
    finished: Type.Boolean(),
    title: Type.String(),
    channelName: Type.String(),
    channelId: Type.String(),
    thumbnail: Type.String({ description: 'thumbnail URL; empty while none is known' }),
    downloadUrl: Type.Optional(Type.String({ description: 'present when an archive exists' })),
    fileSizeBytes: Type.Optional(Type.Integer({ description: 'size of the stored file; present when an archive exists' })),
    length: Type.Optional(Type.Integer({ description: 'seconds, measured by ffprobe; present when an archive exists' })),
    integrity: Type.Optional(
      Type.Union([Type.Enum(INTEGRITY_STATES), Type.Null()], {
        description:
          'present when Kura stores the archive: ok, missing (not in storage) or corrupt (size or sha256 differs) as its last verification found; null before the first',
      }),
    ),
    status: Type.Enum(LIVESTREAM_STATUSES),
    platform: Type.Enum(PLATFORMS),
    sourceUrl: Type.String({
      description:
        'where it is recorded from; whole for an admin, else without user name and password and with query values and fragment masked (***), YouTube v, list, t and index kept',
    }),
    startedAt: Type.Union([Timestamp, Type.Null()]),
    endedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'LivestreamRecord' },
);
export type LivestreamRecord = Static<typeof LivestreamRecordSchema>;

/** The watch job's last look at an upcoming record's source, which did not find it live. */
export const LastCheckSchema = Type.Union(
  [
    Type.Object({
      at: Timestamp,
      result: Type.Union([Type.String(), Type.Null()], {
        description: 'what the source answered ("…: HTTP 404", "no segment yet"); URLs in it redacted but for an admin; null when it said nothing',
      }),
      nextAt: Type.String({ format: 'date-time', description: 'when Kura looks again; ISO 8601, UTC (Z)' }),
    }),
    Type.Null(),
  ],
  { description: 'an upcoming record: the last look at its source, which did not find it live; null before the first look, and for any other status' },
);

/** A recording's figures so far (src/core/capture/capture-progress.ts). */
export const CaptureProgressSchema = Type.Object(
  {
    elapsedSeconds: Type.Integer({ description: 'seconds of the clock since the capture started' }),
    recordedSeconds: Type.Number({ description: 'seconds of media recorded so far' }),
    bytes: Type.Integer({ description: 'bytes recorded so far' }),
    bitsPerSecond: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the rate of the last 30 s of recorded media; null before two segments of a part are recorded',
    }),
    gaps: Type.Integer({ description: 'runs of segments lost so far' }),
    lostSeconds: Type.Number({ description: 'seconds of media the lost segments held' }),
    frameUrl: Type.String({
      description:
        'a JPEG of a frame of a recent segment: asking for it makes frames, about once a minute while asked (the URL changes with each); while no frame is fresh it changes every 30 s, so a page asks again',
    }),
    frameAt: Type.Union([Timestamp, Type.Null()], {
      description: 'when the frame was taken; null before the first (none is made until the frame is asked for)',
    }),
  },
  { $id: 'CaptureProgress' },
);
export type CaptureProgressBody = Static<typeof CaptureProgressSchema>;

const ProgressProperty = Type.Union([CaptureProgressSchema, Type.Null()], { description: 'while the stream is recorded, its figures so far; null otherwise' });

/** The `capture` of a queued record: its figures while it is recorded. */
export const QueuedCaptureSchema = Type.Union([Type.Object({ progress: ProgressProperty }), Type.Null()], {
  description: 'a record being recorded: its figures so far; null for an upcoming record',
});

const CaptureDetailsSchema = Type.Object({
  state: Type.Enum(CAPTURE_STATES),
  endReason: Type.Union([Type.String(), Type.Null()], {
    description:
      'endlist, offline (the playlist kept answering 404/410), restarted (a new broadcast began on the same playlist), idle, not_live (a YouTube head frozen while YouTube said not live; with idle, the stream may still go on in the same record), source_unreachable, duration_limit, size_limit, disk_full, unsupported_encryption, access_lost (the source refused Kura mid-stream: the cookies no longer open a members-only stream) or cancelled (an admin stopped it)',
  }),
  endNote: Type.Union([Type.String(), Type.Null()], {
    description: 'why the capture ended, in words, with the end reason after them: "the disk had less free space than the operator keeps free (disk_full)"',
  }),
  parts: Type.Array(Type.Object({ part: Type.Integer(), bytes: Type.Integer(), segments: Type.Integer(), seconds: Type.Number() }), {
    description: 'MPEG-TS parts as captured (a new part starts at each discontinuity)',
  }),
  gaps: Type.Array(Type.Object({ firstSequence: Type.Integer(), lastSequence: Type.Integer(), seconds: Type.Number(), reason: Type.String() }), {
    description: 'media sequences that were lost, with why',
  }),
  complete: Type.Boolean({ description: 'true when no segment was lost (ads cut are not lost)' }),
  adBreaks: Type.Array(
    Type.Object({
      at: Type.Union([Type.Number(), Type.Null()], {
        description: 'seconds into the archive where the ads were cut; null for ads before its first second (a pre-roll)',
      }),
      seconds: Type.Number({ description: 'how long the ads ran' }),
    }),
    { description: 'ads the source stitched into its stream (Twitch marks them), cut from the recording' },
  ),
  progress: ProgressProperty,
});

/** One record with what is known about its capture. */
export const LivestreamDetailsSchema = Type.Object(
  {
    ...LivestreamRecordSchema.properties,
    failureReason: Type.Union([Type.String(), Type.Null()], { description: 'why a failed record failed (URLs in it redacted but for an admin)' }),
    downloads: Type.Integer({ description: 'GETs of the video download' }),
    sha256: Type.Union([Type.String(), Type.Null()], { description: 'checksum of the stored video' }),
    verifiedAt: Type.Optional(
      Type.Union([Timestamp, Type.Null()], { description: 'present with `integrity`: when the archive was last verified; null before the first' }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    pinned: Type.Boolean({ description: 'pinned by an admin: kept whatever the retention rules say' }),
    capture: Type.Union([CaptureDetailsSchema, Type.Null()], { description: 'null for records Kura did not capture (imported)' }),
    lastCheck: LastCheckSchema,
    moments: Type.Array(MomentSchema, { description: 'the moments marked in it, by time (as GET /api/video/{id}/moments)' }),
  },
  { $id: 'LivestreamDetails' },
);
export type LivestreamDetails = Static<typeof LivestreamDetailsSchema>;
