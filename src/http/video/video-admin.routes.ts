import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { cancelLivestream } from '../../core/workflow/cancel-livestream.js';
import { renameLivestream } from '../../core/workflow/rename-livestream.js';
import { retryLivestream } from '../../core/workflow/retry-livestream.js';
import { takeDownLivestream } from '../../core/workflow/take-down-livestream.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamIdParamsSchema, LivestreamRecordSchema } from '../livestreams/record.schema.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponses } from '../responses.schema.js';
import type { LivestreamRepo } from '../../core/livestream/ports.js';
import type { CaptureRepo } from '../../core/capture/ports.js';
import type { ArchiveStore } from '../../core/archive/ports.js';
import type { AccountDeps } from '../auth/account-deps.js';

const ReasonSchema = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000, description: 'Why, kept in the audit table (1–2000 characters)' }) });
const OptionalReasonSchema = Type.Object({ reason: Type.Optional(ReasonSchema.properties.reason) });
const RenameSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'The record’s new title' })),
    channelName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Its channel’s new name (the channel id stays)' })),
  },
  { minProperties: 1, additionalProperties: false },
);

/** What the admin actions on a record use. */
export interface VideoAdminRouteDeps extends Pick<AccountDeps, 'scheduler' | 'adminActions'> {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  store: ArchiveStore;
  publicUrl: string;
  guard: Pick<Guard, 'requireAdmin'>;
}

/** Admin actions on a record: take it down, cancel waiting for it, retry it, rename it. */
export function videoAdminRoutes(deps: VideoAdminRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.delete(
      '/video/:id',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'deleteVideo',
          summary: 'Admin: removes the archive files and the record, keeping the reason (204)',
          params: LivestreamIdParamsSchema,
          body: ReasonSchema,
          response: { 204: NoContentSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        await takeDownLivestream(deps, { caller, id: request.params.id, reason: request.body.reason });
        return sendNoContent(reply);
      },
    );
    app.patch(
      '/video/:id',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'renameVideo',
          summary: 'Admin: renames a record (its title, its channel’s name, or both); the search index follows',
          params: LivestreamIdParamsSchema,
          body: RenameSchema,
          response: { 200: LivestreamRecordSchema, ...problemResponses },
        },
      },
      async (request) => {
        const record = await renameLivestream(deps, { caller: callerOf(request), id: request.params.id, ...request.body });
        return presentRecord(record, deps.publicUrl, 'admin');
      },
    );
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
          response: { 200: LivestreamRecordSchema, 202: LivestreamRecordSchema, ...problemResponses },
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
          response: { 200: LivestreamRecordSchema, ...problemResponses },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const reason = request.body?.reason ?? 'retried';
        return presentRecord(await retryLivestream(deps, { caller, id: request.params.id, reason }), deps.publicUrl, 'admin');
      },
    );
  };
}
