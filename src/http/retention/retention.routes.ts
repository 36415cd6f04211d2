import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { FOLLOW_ID_PATTERN } from '../../core/follows/follow.js';
import { getChannelRetention, setChannelRetention } from '../../core/retention/channel-retention.js';
import type { RetentionRepo } from '../../core/retention/ports.js';
import { previewRetention, type PreviewScope } from '../../core/retention/preview-retention.js';
import type { RetentionRules } from '../../core/retention/retention-rules.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { ChannelParamsSchema } from '../channels/channels.schema.js';
import { channelIdSchema } from '../channels/channel-id.schema.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
import { RetentionChangeSchema, RetentionPlanSchema, RetentionRulesSchema, type RetentionPlanJson } from './retention.schema.js';
import type { RetentionPlan } from '../../core/retention/plan-retention.js';
import { AppError } from '../../core/errors.js';

/** What the retention routes use: the repository, the instance's default rules (KURA_RETENTION_*) and the guard. */
export interface RetentionRouteDeps {
  retention: RetentionRepo;
  defaults: RetentionRules;
  guard: Pick<Guard, 'requireAdmin'>;
}

const PreviewSchema = Type.Object(
  {
    follow: Type.Optional(Type.String({ pattern: FOLLOW_ID_PATTERN, description: 'the share of this follow’s rules' })),
    channel: Type.Optional(channelIdSchema('the share of this channel’s rules')),
    rules: Type.Optional(RetentionRulesSchema),
  },
  { additionalProperties: false, description: 'at most one of follow and channel; rules (with one of them): as if saved' },
);

/** A plan as the API answers it. */
export function presentPlan(plan: RetentionPlan): RetentionPlanJson {
  const removals = plan.removals.map(({ id, title, sizeBytes, reason }) => ({ id, title, sizeBytes, reason }));
  return { removals, count: removals.length, bytes: plan.bytes };
}

/** Admin: a channel's retention rules (`GET`, `PATCH /api/channels/{channelId}/retention`) and the preview of a run (`POST /api/retention/preview`). */
export function retentionRoutes(deps: RetentionRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/channels/:channelId/retention',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'getChannelRetention',
          summary: 'Admin: a channel’s retention rules (every limit null: none set)',
          params: ChannelParamsSchema,
          response: { 200: RetentionRulesSchema, 400: problemResponse('`invalid_retention`: a limit is not valid (the detail names it)'), ...problemResponses },
        },
      },
      async (request) => getChannelRetention(deps, { caller: callerOf(request), channelId: request.params.channelId }),
    );
    app.patch(
      '/channels/:channelId/retention',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'updateChannelRetention',
          summary: 'Admin: changes a channel’s retention rules (a limit left out stays, null clears it)',
          params: ChannelParamsSchema,
          body: RetentionChangeSchema,
          response: { 200: RetentionRulesSchema, 400: problemResponse('`invalid_retention`: a limit is not valid (the detail names it)'), ...problemResponses },
        },
      },
      async (request) => setChannelRetention(deps, { caller: callerOf(request), channelId: request.params.channelId, change: request.body, now: new Date() }),
    );
    app.post(
      '/retention/preview',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'previewRetention',
          summary:
            'Admin: what a retention run would remove now (the same plan the job runs), whole or for one follow’s or channel’s rules, as saved or as given',
          body: PreviewSchema,
          response: { 200: RetentionPlanSchema, 400: problemResponse('`invalid_retention`: a limit is not valid (the detail names it)'), ...problemResponses },
        },
      },
      async (request) => {
        const { follow, channel, rules } = request.body;
        if (follow !== undefined && channel !== undefined) throw invalid('Give follow or channel, not both.');
        const scope: PreviewScope | undefined = follow !== undefined ? { follow } : channel !== undefined ? { channel } : undefined;
        if (rules !== undefined && scope === undefined) throw invalid('rules preview a follow’s or a channel’s: give follow or channel with them.');
        const preview = { caller: callerOf(request), defaults: deps.defaults, now: new Date(), ...(scope ? { scope } : {}), ...(rules ? { rules } : {}) };
        return presentPlan(await previewRetention(deps, preview));
      },
    );
  };
}

const invalid = (detail: string) => new AppError('invalid', 'invalid_retention', detail);
