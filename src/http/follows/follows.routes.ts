// Decisions: docs/decisions/0110-follows-policy-pacing-api.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { submitterOf } from '../../core/accounts/account.js';
import { addFollow, type FollowPolicy } from '../../core/follows/add-follow.js';
import { getFollow } from '../../core/follows/get-follow.js';
import { listFollows } from '../../core/follows/list-follows.js';
import type { ChannelResolver, FollowRepo } from '../../core/follows/ports.js';
import { removeFollow } from '../../core/follows/remove-follow.js';
import { describeRate, type RateLimiter } from '../../core/rate-limit.js';
import { FOLLOW_CREATION_RATE } from '../../core/follows/follow.js';
import { updateFollow } from '../../core/follows/update-follow.js';
import { audienceOf } from '../auth/audience.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { requireStrings, requireStringsOrNull } from '../input-checks.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { splitRetention } from '../retention/retention-body.js';
import { routeGroups, type TypeboxApp } from '../typebox-app.js';
import { presentFollow, presentFollowDetail } from './follow.presenter.js';
import { CreateFollowSchema, FollowDetailSchema, FollowListSchema, FollowParamsSchema, FollowSchema, UpdateFollowSchema } from './follows.schema.js';

/** What the follow routes work on, as the composition root wires it. */
export interface FollowDeps {
  follows: FollowRepo;
  resolver: ChannelResolver;
  policy: FollowPolicy;
  /** Counts each admin's new follows. */
  rateLimiter: RateLimiter;
}

/** What the follow routes use: FollowDeps, and the guard that tells the admin and callers apart. */
export interface FollowRouteDeps extends FollowDeps {
  guard: Pick<Guard, 'optional' | 'requireAdmin'>;
}

/**
 * `GET /api/follows[/{id}]` (public: URLs and errors redacted but for the admin), `POST`, `PATCH`,
 * `DELETE` (admin): the channels Kura follows by itself.
 */
export function followRoutes(deps: FollowRouteDeps): FastifyPluginAsyncTypebox {
  return routeGroups(deps, followReadRoutes, followAdminRoutes);
}

/** `GET /api/follows[/{id}]`: public, URLs and errors redacted but for the admin. */
function followReadRoutes(app: TypeboxApp, deps: FollowRouteDeps): void {
  const { guard } = deps;
  app.get(
    '/follows',
    {
      schema: {
        operationId: 'listFollows',
        summary: 'What the instance follows, oldest first, with each follow’s health',
        response: { 200: FollowListSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const audience = await audienceOf(guard, request, reply);
      return (await listFollows(deps)).map((follow) => presentFollow(follow, now, audience));
    },
  );
  app.get(
    '/follows/:id',
    {
      schema: {
        operationId: 'getFollow',
        summary: 'One follow with its health and its latest decisions (queued, skipped and why)',
        params: FollowParamsSchema,
        response: { 200: FollowDetailSchema, 404: problemResponse('`follow_not_found`'), ...problemResponses },
      },
    },
    async (request, reply) => {
      const audience = await audienceOf(guard, request, reply);
      const { follow, recent } = await getFollow(deps, request.params.id);
      return presentFollowDetail(follow, recent, new Date(), audience);
    },
  );
}

/** `POST /api/follows`, `PATCH` and `DELETE /api/follows/{id}`: the admin's. */
function followAdminRoutes(app: TypeboxApp, deps: FollowRouteDeps): void {
  const { guard } = deps;
  app.post(
    '/follows',
    {
      onRequest: guard.requireAdmin,
      preValidation: requireStrings('channel', 'title'),
      schema: {
        operationId: 'createFollow',
        summary: `Admin: follows a YouTube channel, a Holodex organisation or topic, or an HLS endpoint (201); ${describeRate(FOLLOW_CREATION_RATE)} an admin`,
        body: CreateFollowSchema,
        response: {
          201: FollowSchema,
          409: problemResponse('`already_followed`'),
          ...rateLimitedResponse,
          400: problemResponse('`invalid_follow`: the URL or a rule is not valid (the detail names it)'),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const now = new Date();
      const follow = await addFollow(deps, { follow: request.body, createdBy: submitterOf(callerOf(request).user), now });
      return reply.code(201).send(presentFollow(follow, now, 'admin'));
    },
  );
  app.patch(
    '/follows/:id',
    {
      onRequest: guard.requireAdmin,
      preValidation: [requireStrings('channel'), requireStringsOrNull('title')],
      schema: {
        operationId: 'updateFollow',
        summary: 'Admin: changes a follow’s rules or names, pauses or resumes it',
        params: FollowParamsSchema,
        body: UpdateFollowSchema,
        response: {
          200: FollowSchema,
          400: problemResponse('`invalid_follow`: a rule is not valid (the detail names it)'),
          404: problemResponse('`follow_not_found`'),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const now = new Date();
      const { retention, rest } = splitRetention(request.body);
      const change = retention === undefined ? rest : { ...rest, retention };
      return presentFollow(await updateFollow(deps, { id: request.params.id, change, now }), now, 'admin');
    },
  );
  app.delete(
    '/follows/:id',
    {
      onRequest: guard.requireAdmin,
      schema: {
        operationId: 'deleteFollow',
        summary: 'Admin: stops following (its records stay) (204)',
        params: FollowParamsSchema,
        response: { 204: NoContentSchema, 404: problemResponse('`follow_not_found`'), ...problemResponses },
      },
    },
    async (request, reply) => {
      await removeFollow(deps, request.params.id);
      return sendNoContent(reply);
    },
  );
}
