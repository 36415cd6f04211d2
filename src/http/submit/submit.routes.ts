import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { submitStream } from '../../core/workflow/submit-stream.js';
import { audienceOfCaller } from '../auth/audience.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { LivestreamRecordSchema } from '../livestreams/record.schema.js';
import { problemResponses } from '../responses.schema.js';
import type { LivestreamRepo } from '../../core/livestream/ports.js';
import type { CaptureRepo } from '../../core/capture/ports.js';
import type { AccountDeps, AccountSettings } from '../auth/account-deps.js';

const SubmitBodySchema = Type.Object({
  videoUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'A YouTube livestream URL or an HLS playlist (.m3u8) URL' }),
  quality: Type.Optional(
    Type.String({ pattern: '^(best|[1-9][0-9]{2,3}p)$', description: '`best` (default) or a height like `720p`, as GET /api/qualities lists' }),
  ),
  title: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: 'An HLS stream’s title (default: its channel or host and the minute it was queued); YouTube streams keep YouTube’s',
    }),
  ),
  channel: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'An HLS stream’s channel (default: its host); its channel id is a slug of it' }),
  ),
});

/** What submission uses. */
export interface SubmitRouteDeps extends Pick<AccountDeps, 'scheduler' | 'submissionSource' | 'rateLimiter'> {
  livestreams: LivestreamRepo;
  captures: CaptureRepo;
  settings: Pick<AccountSettings, 'submitLimit'>;
  publicUrl: string;
  guard: Pick<Guard, 'requireCaller'>;
}

/** `POST /api/submit`: a logged-in user queues a stream, or joins its record as a submitter. */
export function submitRoutes(deps: SubmitRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.post(
      '/submit',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'submitLivestream',
          summary: 'Queues a livestream for archiving as the caller (idempotent: a submitter appears once)',
          body: SubmitBodySchema,
          response: { 200: LivestreamRecordSchema, ...problemResponses },
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
            quality: request.body.quality === 'best' ? undefined : request.body.quality,
            title: request.body.title?.trim(),
            channelName: request.body.channel?.trim(),
            rule: deps.settings.submitLimit,
            now: new Date(),
          },
        );
        // the record may hold others' submissions: its source URL whole for the admin only
        return presentRecord(record, deps.publicUrl, audienceOfCaller(caller));
      },
    );
  };
}
