import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { recordingProgress } from '../../core/capture/capture-progress.js';
import type { CaptureStates, PartLog } from '../../core/capture/ports.js';
import { listQueueWithLooks } from '../../core/records/list-queue.js';
import { audienceOf } from '../auth/audience.js';
import type { Guard } from '../auth/guard.js';
import { presentLastCheck, presentProgress, presentRecord } from '../livestreams/record.presenter.js';
import { problemResponses } from '../responses.schema.js';
import { QueueQuerySchema, QueueResponseSchema } from './queue.schema.js';
import type { LivestreamRepo, WatchLooks } from '../../core/records/ports.js';
import { sendCached, type ReadCache } from '../read-cache.js';

/** How long a cached queue answer may show a recording's figures: the queue page asks every 5 s. */
const PROGRESS_CACHE_MS = 5_000;

/** What the queue route uses. */
export interface QueueRouteDeps {
  livestreams: LivestreamRepo;
  watchLooks: WatchLooks;
  captures: CaptureStates & PartLog;
  cache: ReadCache;
  publicUrl: string;
  guard: Pick<Guard, 'optional'>;
}

/** `GET /api/queue`: upcoming and live records, soonest first, each upcoming one with its last check; of one channel with channelId (source URLs whole for the admin only). */
export function queueRoutes(deps: QueueRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/queue',
      {
        schema: {
          operationId: 'listQueue',
          summary: 'Upcoming and live livestreams, soonest first; of one channel with channelId',
          querystring: QueueQuerySchema,
          response: { 200: QueueResponseSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const audience = await audienceOf(guard, request, reply);
        return sendCached(
          request,
          reply,
          // a recording's figures move with every segment and an upcoming record's last check with every look, neither of
          // which notifies anything: an answer is kept at most PROGRESS_CACHE_MS
          { cache: deps.cache, dependsOn: ['records'], keepForMs: PROGRESS_CACHE_MS, atTheDoor: true },
          async () => {
            const queued = await listQueueWithLooks(deps, request.query.channelId ?? null);
            const live = queued.filter(({ record }) => record.status === 'live').map(({ record }) => record.id);
            const progress = await recordingProgress(deps, live);
            const body = queued.map(({ record, lastLook }) => ({
              ...presentRecord(record, deps.publicUrl, audience),
              lastCheck: presentLastCheck(lastLook, audience),
              capture: record.status === 'live' ? { progress: presentProgress(progress.get(record.id) ?? null, record.id, deps.publicUrl) } : null,
            }));
            return { body: reply.serialize(body) as string, headers: {} };
          },
          { audience },
        );
      },
    );
  };
}
