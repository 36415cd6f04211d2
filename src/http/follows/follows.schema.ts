import Type, { type Static } from 'typebox';
import { FOLLOW_ID_PATTERN, FOLLOW_KINDS, MEMBERS_ONLY_RULES, SIGNALS_OF } from '../../core/follows/follow.js';
import { MAX_RULE_EXPANSION, MAX_RULE_LENGTH } from '../../core/follows/follow-rules.js';
import { GIVEN_NAME_RULE, VISIBLE_NAME_PATTERN } from '../../core/records/record-names.js';
import { retentionChangeProperties, retentionCreateProperties, RetentionRulesSchema } from '../retention/retention.schema.js';

const time = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const SIGNAL_NAMES = ['feed', 'tabs', 'holodex', 'playlist', 'helix'] as const satisfies readonly (typeof SIGNALS_OF)[keyof typeof SIGNALS_OF][number][];
const RULE_BOUND = `; HLS endpoints: matched against each broadcast's record title ("{title or channel} YYYY-MM-DD HH:MM UTC"); refused (400 invalid_follow) when its counted repetitions ({n,m}) write it out past ${MAX_RULE_EXPANSION} characters`;
const rule = (description: string) => Type.String({ minLength: 1, maxLength: MAX_RULE_LENGTH, description: `${description}${RULE_BOUND}` });
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const RulesSchema = Type.Object({
  titleInclude: Type.Union([Type.String(), Type.Null()], {
    description: 'a regular expression (RE2 syntax, case-insensitive) a queued title must match; null: any',
  }),
  titleExclude: Type.Union([Type.String(), Type.Null()], { description: 'a regular expression (RE2 syntax, case-insensitive) no queued title may match' }),
  membersOnly: Type.Enum(MEMBERS_ONLY_RULES),
  quality: Type.Union([Type.String(), Type.Null()], { description: 'quality asked of every queued stream; null: the best' }),
});

const SignalSchema = Type.Object({
  signal: Type.Enum(SIGNAL_NAMES),
  lastCheckedAt: time('when it was last looked at'),
  lastOkAt: time('when it last answered'),
  lastError: Type.Union([Type.String(), Type.Null()], {
    description:
      "its last failure's words (for all but an admin: URLs redacted, a refused address only 'refused: not a public address'); null once it answered again",
  }),
  lastErrorAt: time('when it last failed'),
  nextCheckAt: Type.String({ format: 'date-time' }),
});

const followProperties = {
  id: Type.String(),
  kind: Type.Enum(FOLLOW_KINDS),
  url: Type.String({
    description:
      'the source in its kept form (a handle resolved to /channel/UC…); whole for an admin, else without user name and password and with query values masked (***)',
  }),
  channelId: Type.Union([Type.String(), Type.Null()]),
  channelName: Type.String(),
  title: Type.Union([Type.String(), Type.Null()], { description: "HLS endpoints: each broadcast's record title before its start time" }),
  rules: RulesSchema,
  retention: RetentionRulesSchema,
  paused: Type.Boolean(),
  createdBy: Type.String({ description: 'the admin who created it, provider/userId' }),
  createdAt: Type.String({ format: 'date-time' }),
  health: Type.Enum(['ok', 'failing', 'unhealthy', 'paused'] as const, {
    description:
      'failing: every signal fails, or the cookies no longer give access to the members-only streams it includes (accessError); unhealthy: for an hour or more',
  }),
  queued: Type.Integer({ minimum: 0, description: 'streams it queued, ever' }),
  lastCheckedAt: time('when it was last checked'),
  nextCheckAt: Type.String({ format: 'date-time' }),
  failingSince: time('since when every signal fails, or the cookies give no access (accessError); null while one answers and access works'),
  signals: Type.Array(SignalSchema),
  accessError: Type.Union([Type.String(), Type.Null()], {
    description:
      'why the cookies (KURA_YTDLP_COOKIES) no longer give access to the members-only streams it includes: YouTube refused one (named); null once that stream opens again, or when the follow skips members-only streams',
  }),
};

export const FollowSchema = Type.Object(followProperties, { $id: 'Follow' });
export type FollowJson = Static<typeof FollowSchema>;
export const FollowListSchema = Type.Array(FollowSchema);

export const SightingSchema = Type.Object(
  {
    streamId: Type.String(),
    title: Type.Union([Type.String(), Type.Null()]),
    verdict: Type.Enum(['queued', 'known', 'skipped', 'later', 'failed'] as const),
    reason: Type.String(),
    seenAt: Type.String({ format: 'date-time' }),
    recheckAt: time('when it is decided again; null: decided for good'),
  },
  { $id: 'FollowSighting' },
);
export type SightingJson = Static<typeof SightingSchema>;

export const FollowDetailSchema = Type.Object(
  { ...followProperties, recent: Type.Array(SightingSchema, { description: 'its latest decisions, newest first' }) },
  { $id: 'FollowDetail' },
);
export type FollowDetailJson = Static<typeof FollowDetailSchema>;

export const FollowParamsSchema = Type.Object({ id: Type.String({ pattern: FOLLOW_ID_PATTERN, description: 'A follow id from GET /api/follows' }) });

const quality = Type.String({ pattern: '^[0-9]{3,4}p$|^best$', description: '`best` or a height like `720p`' });
const name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_NAME_PATTERN, description: `${description}. A JSON string; ${GIVEN_NAME_RULE}` });

export const CreateFollowSchema = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'a YouTube channel (/channel/UC…, /@handle, UC…, @handle), holodex:org/NAME, holodex:topic/NAME, a Twitch channel (https://www.twitch.tv/NAME), or an HLS playlist URL',
    }),
    channel: Type.Optional(name("the channel's name (HLS endpoints: also the default record title)")),
    title: Type.Optional(name("HLS endpoints: each broadcast's record title, before its start time")),
    titleInclude: Type.Optional(rule('a regular expression (RE2 syntax: no lookaround or backreferences; case-insensitive) a title must match')),
    titleExclude: Type.Optional(rule('a regular expression (RE2 syntax: no lookaround or backreferences; case-insensitive) no title may match')),
    membersOnly: Type.Optional(Type.Enum(MEMBERS_ONLY_RULES)),
    quality: Type.Optional(quality),
    ...retentionCreateProperties,
  },
  { additionalProperties: false },
);

export const UpdateFollowSchema = Type.Object(
  {
    channel: Type.Optional(name("the channel's name")),
    title: Type.Optional(nullable(name("HLS endpoints: each broadcast's record title; null: the channel name"))),
    titleInclude: Type.Optional(nullable(rule('null clears it'))),
    titleExclude: Type.Optional(nullable(rule('null clears it'))),
    membersOnly: Type.Optional(Type.Enum(MEMBERS_ONLY_RULES)),
    quality: Type.Optional(nullable(quality)),
    paused: Type.Optional(Type.Boolean({ description: 'true stops checking it; false resumes (due at once)' })),
    ...retentionChangeProperties,
  },
  { additionalProperties: false, minProperties: 1 },
);
