import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { AppError } from '../../core/errors.js';
import { CallerSchema, UserSchema } from './user.schema.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { problemResponses } from '../responses.schema.js';
import { presentCaller, presentUser } from './user.presenter.js';
import type { AccountDeps } from '../auth/account-deps.js';

const CurrentUserQuerySchema = Type.Object({
  optional: Type.Optional(
    Type.Boolean({ description: 'true: a caller who is not logged in is answered 200 with null instead of 401 (a page asking who is logged in)' }),
  ),
});

const UserQuerySchema = Type.Object({
  optional: Type.Optional(
    Type.Boolean({
      description: 'true: a submitter no account stands behind (an imported one) is answered 200 with null instead of 404 (a page naming submitters)',
    }),
  ),
});

const UserParamsSchema = Type.Object({
  provider: Type.String({ pattern: '^[a-z0-9_-]{1,32}$', description: 'discord, google, twitch, github, oidc or local' }),
  id: Type.String({ pattern: '^[^\\s/]{1,128}$', description: 'The user id at that provider' }),
});

/** What the user routes use. */
export interface UserRouteDeps extends Pick<AccountDeps, 'users'> {
  guard: Pick<Guard, 'optional' | 'requireCaller'>;
}

/**
 * `GET /api/user` (the caller; with `?optional=true` null for nobody) and
 * `GET /api/user/{provider}/{id}` (anyone's public identity; with `?optional=true` null for a
 * submitter without an account).
 */
export function userRoutes(deps: UserRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.get(
      '/user',
      {
        // open on a private instance: it tells only the caller who they are (null for nobody), and the UI asks before it shows the login
        config: { access: 'open' },
        // the login is judged before the query is validated (a stranger gets 401, never 400): the raw query decides
        onRequest: async (request, reply) => {
          if ((request.query as Record<string, unknown>).optional === 'true') await guard.optional(request, reply);
          else await guard.requireCaller(request, reply);
        },
        schema: {
          operationId: 'getCurrentUser',
          summary: 'The logged-in caller (401 when not logged in; null with optional=true)',
          querystring: CurrentUserQuerySchema,
          response: { 200: Type.Union([CallerSchema, Type.Null()]), ...problemResponses },
        },
      },
      async (request) => (request.query.optional === true && request.caller === null ? null : presentCaller(callerOf(request))),
    );
    app.get(
      '/user/:provider/:id',
      {
        schema: {
          operationId: 'getUser',
          summary: 'A user’s public identity (a submitter `provider/id`; 404, or null with optional=true, when no account stands behind it)',
          params: UserParamsSchema,
          querystring: UserQuerySchema,
          response: { 200: Type.Union([UserSchema, Type.Null()]), ...problemResponses },
        },
      },
      async (request) => {
        const user = await deps.users.find(request.params.provider, request.params.id);
        if (user === null && request.query.optional === true) return null;
        if (user === null) throw new AppError('not_found', 'user_not_found', `There is no user ${request.params.provider}/${request.params.id}.`);
        return presentUser(user);
      },
    );
  };
}
