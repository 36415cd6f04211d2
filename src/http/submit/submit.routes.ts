// Decisions: docs/decisions/0075-original-interface-compatibility.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { submitterOf } from '../../core/accounts/account.js';
import { submitStream } from '../../core/record-actions/submit-stream.js';
import { audienceOfCaller } from '../auth/audience.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';
import { problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { requireStrings } from '../input-checks.js';
import type { LivestreamRepo } from '../../core/records/ports.js';
import type { CaptureRepo } from '../../core/capture/ports.js';
import type { AccountDeps, AccountSettings } from '../auth/account-deps.js';
import { requestedQuality, SUBMIT_MEDIA_TYPES, SubmitBodySchema } from './submit.schema.js';
import type { Scheduler } from '../../core/scheduler.js';

/** What submission uses. */
export interface SubmitRouteDeps extends Pick<AccountDeps, 'submissionSource' | 'rateLimiter'> {
  scheduler: Scheduler;
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  settings: Pick<AccountSettings, 'submitLimit'>;
  publicUrl: string;
  guard: Pick<Guard, 'requireCaller'>;
}

/**
 * `POST /api/submit`: a logged-in user queues a stream, or joins its record as a submitter. The
 * body is JSON, sent as application/json or text/plain (the original web client sets no
 * Content-Type, so browsers send text/plain): this route alone reads text/plain, with the JSON
 * parser, and the guard's same-origin rule holds for it as for any other type.
 */
export function submitRoutes(deps: SubmitRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    // in this plugin's own context: every other route still answers text/plain 415
    app.addContentTypeParser('text/plain', { parseAs: 'string' }, app.getDefaultJsonParser('error', 'error'));
    app.post(
      '/submit',
      {
        onRequest: guard.requireCaller,
        preValidation: requireStrings('title', 'channel'),
        schema: {
          operationId: 'submitLivestream',
          summary: 'Queues a livestream for archiving as the caller (idempotent: a submitter appears once)',
          consumes: SUBMIT_MEDIA_TYPES,
          body: SubmitBodySchema,
          response: {
            200: LivestreamRecordSchema,
            400: problemResponse('`invalid_source`: Kura cannot archive this URL (the detail says why)'),
            409: problemResponse('`already_archived`: the stream is archived or queued already'),
            ...rateLimitedResponse,
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        const record = await submitStream(
          {
            livestreams: deps.livestreams,
            captures: deps.captures,
            scheduler: deps.scheduler,
            source: deps.submissionSource,
            rateLimiter: deps.rateLimiter,
          },
          {
            caller,
            url: request.body.videoUrl,
            quality: requestedQuality(request.body.quality),
            title: request.body.title,
            channelName: request.body.channel,
            rule: deps.settings.submitLimit,
            now: new Date(),
          },
        );
        const by = submitterOf(caller.user);
        request.log.info({ id: record.id, submitter: by, status: record.status }, `submitted by ${by}: ${record.id} "${record.title}" (${record.status})`);
        // the record may hold others' submissions: its source URL whole for the admin only
        return presentRecord(record, deps.publicUrl, audienceOfCaller(caller));
      },
    );
  };
}
