import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { rotateFeedToken } from '../../core/accounts/rotate-feed-token.js';
import { callerOf, type Guard } from '../auth/guard.js';
import type { AccountDeps } from '../auth/account-deps.js';
import { problemResponses } from '../responses.schema.js';

const FeedTokenStateSchema = Type.Object(
  {
    createdAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the current feed token was made; null: none yet' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Its last use (noted at most once a minute)' }),
  },
  { $id: 'FeedTokenState' },
);
const NewFeedTokenSchema = Type.Object(
  {
    token: Type.String({ description: 'Add as `?feed_token=<token>` to feed and download URLs. Shown this once: only its hash is kept.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'NewFeedToken' },
);

/** What the feed token routes use. */
export interface FeedTokenRouteDeps extends Pick<AccountDeps, 'feedTokens'> {
  guard: Pick<Guard, 'requireCaller'>;
}

/** `GET|POST /api/user/feed-token`: the caller's feed token, which reads feeds and downloads of a private instance. */
export function feedTokenRoutes(deps: FeedTokenRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/user/feed-token',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'getFeedToken',
          summary: 'Whether the caller has a feed token, and when it was made and used (never its secret)',
          response: { 200: FeedTokenStateSchema, ...problemResponses },
        },
      },
      async (request) => {
        const found = await deps.feedTokens.find(callerOf(request).user.id);
        return { createdAt: found?.createdAt.toISOString() ?? null, lastUsedAt: found?.lastUsedAt?.toISOString() ?? null };
      },
    );
    app.post(
      '/user/feed-token',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'rotateFeedToken',
          summary: 'Makes the caller a new feed token, voiding the one they had; its secret is in this answer only',
          response: { 201: NewFeedTokenSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const created = await rotateFeedToken(deps, { userId: callerOf(request).user.id });
        // a secret: no cache, no shared proxy may keep it
        reply.header('cache-control', 'no-store');
        return reply.code(201).send({ token: created.token, createdAt: created.createdAt.toISOString() });
      },
    );
  };
}
