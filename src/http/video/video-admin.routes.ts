import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { submitterOf } from '../../core/accounts/account.js';
import { cancelLivestream } from '../../core/record-actions/cancel-livestream.js';
import { renameLivestream } from '../../core/record-actions/rename-livestream.js';
import { retryLivestream } from '../../core/record-actions/retry-livestream.js';
import { takeDownLivestream } from '../../core/record-actions/take-down-livestream.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamIdParamsSchema, LivestreamRecordSchema } from '../livestreams/record.schema.js';
import { sendNoContent } from '../problem.js';
import { requireStrings } from '../input-checks.js';
import { NoContentSchema, problemResponse, problemResponses } from '../responses.schema.js';
import { routeGroups, type TypeboxApp } from '../typebox-app.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { CaptureRepo } from '../../core/capture/ports.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { AccountDeps } from '../auth/account-deps.js';
import { GIVEN_NAME_RULE, VISIBLE_NAME_PATTERN } from '../../core/records/record-names.js';
import type { Scheduler } from '../../core/scheduler.js';

const ReasonSchema = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000, description: 'Why, kept in the audit table (1–2000 characters)' }) });
const OptionalReasonSchema = Type.Object({ reason: Type.Optional(ReasonSchema.properties.reason) });
const RenameSchema = Type.Object(
  {
    title: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_NAME_PATTERN, description: `The record’s new title (a JSON string; ${GIVEN_NAME_RULE})` }),
    ),
    channelName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: VISIBLE_NAME_PATTERN,
        description: `Its channel’s new name, the channel id staying (a JSON string; ${GIVEN_NAME_RULE})`,
      }),
    ),
  },
  { minProperties: 1, additionalProperties: false },
);

const TakedownPendingSchema = Type.Object(
  {
    id: Type.String({ description: 'The record being taken down' }),
    takedown: Type.Literal('pending', { description: 'Its capture is asked to stop; once it has, the record and its files are removed' }),
    admin: Type.String({ description: 'Who asked first, as `provider/userId`' }),
    reason: Type.String({ description: 'Why, as first asked (kept in the audit table)' }),
    requestedAt: Type.String({ format: 'date-time', description: 'When it was first asked' }),
  },
  { description: 'A takedown of a record being recorded, under way: from now on the record is not served (404)' },
);

/** What the admin actions on a record use. */
export interface VideoAdminRouteDeps extends Pick<AccountDeps, 'adminActions'> {
  scheduler: Scheduler;
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  store: ArchiveStore;
  publicUrl: string;
  guard: Pick<Guard, 'requireAdmin'>;
}

/** Admin actions on a record: take it down, cancel waiting for it, retry it, rename it. */
export function videoAdminRoutes(deps: VideoAdminRouteDeps): FastifyPluginAsyncTypebox {
  return routeGroups(deps, takedownAndRenameRoutes, cancelAndRetryRoutes);
}

/** `DELETE /api/video/{id}` (take it down) and `PATCH` (rename it). */
function takedownAndRenameRoutes(app: TypeboxApp, deps: VideoAdminRouteDeps): void {
  const { guard } = deps;
  app.delete(
    '/video/:id',
    {
      onRequest: guard.requireAdmin,
      schema: {
        operationId: 'deleteVideo',
        summary:
          'Admin: removes the archive files and the record, keeping the reason (204). A record being recorded: its capture is asked to stop, and the record is removed once it has (202; not served meanwhile; asked again, 202 again)',
        params: LivestreamIdParamsSchema,
        body: ReasonSchema,
        response: { 202: TakedownPendingSchema, 204: NoContentSchema, 404: problemResponse('`livestream_not_found`'), ...problemResponses },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const done = await takeDownLivestream(deps, { caller, id: request.params.id, reason: request.body.reason });
      const by = submitterOf(caller.user);
      request.log.info(
        { id: request.params.id, admin: by, reason: request.body.reason },
        done.outcome === 'removed' ? `taken down by ${by}: ${request.params.id}` : `takedown of ${request.params.id} asked by ${by}: its capture stops first`,
      );
      if (done.outcome === 'removed') return sendNoContent(reply);
      const { admin, reason, requestedAt } = done.takedown;
      return reply.code(202).send({ id: done.id, takedown: 'pending' as const, admin, reason, requestedAt: requestedAt.toISOString() });
    },
  );
  app.patch(
    '/video/:id',
    {
      onRequest: guard.requireAdmin,
      preValidation: requireStrings('title', 'channelName'),
      schema: {
        operationId: 'renameVideo',
        summary: 'Admin: renames a record (its title, its channel’s name, or both); the search index follows',
        params: LivestreamIdParamsSchema,
        body: RenameSchema,
        response: {
          200: LivestreamRecordSchema,
          404: problemResponse('`livestream_not_found`'),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const record = await renameLivestream(deps, { caller: callerOf(request), id: request.params.id, ...request.body });
      return presentRecord(record, deps.publicUrl, 'admin');
    },
  );
}

/** `POST /api/video/{id}/cancel` and `/retry`: cancel an upcoming or live record, or give a failed one another go. */
function cancelAndRetryRoutes(app: TypeboxApp, deps: VideoAdminRouteDeps): void {
  const { guard } = deps;
  app.post(
    '/video/:id/cancel',
    {
      onRequest: guard.requireAdmin,
      schema: {
        operationId: 'cancelVideo',
        summary:
          'Admin: cancels a livestream. Upcoming: it becomes failed with the reason (200). Live: the capture is asked to stop and what was recorded is archived (202; the record stays live until then)',
        params: LivestreamIdParamsSchema,
        body: ReasonSchema,
        response: {
          200: LivestreamRecordSchema,
          202: LivestreamRecordSchema,
          404: problemResponse('`livestream_not_found`'),
          409: problemResponse(
            '`livestream_not_cancellable`: only an upcoming or live record is cancelled; `livestream_state_conflict`: it changed state meanwhile',
          ),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { record, stopping } = await cancelLivestream(deps, { caller, id: request.params.id, reason: request.body.reason });
      return reply.code(stopping ? 202 : 200).send(presentRecord(record, deps.publicUrl, 'admin'));
    },
  );
  app.post(
    '/video/:id/retry',
    {
      onRequest: guard.requireAdmin,
      schema: {
        operationId: 'retryVideo',
        summary:
          'Admin: gives a failed livestream another go: parts it captured are made into a video again (it becomes live until finalized), else its source is watched again (it becomes upcoming)',
        params: LivestreamIdParamsSchema,
        body: Type.Optional(OptionalReasonSchema),
        response: {
          200: LivestreamRecordSchema,
          404: problemResponse('`livestream_not_found`'),
          409: problemResponse('`livestream_not_retryable`: only a failed record is retried; `livestream_state_conflict`: it changed state meanwhile'),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const reason = request.body?.reason ?? 'retried';
      return presentRecord(await retryLivestream(deps, { caller, id: request.params.id, reason }), deps.publicUrl, 'admin');
    },
  );
}
