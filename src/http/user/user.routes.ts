// Decisions: docs/decisions/0098-the-original-client-works-whole.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type, { type Static } from 'typebox';
import { AppError } from '../../core/errors.js';
import { LEGACY_PROVIDER, legacySubmitterName } from '../../core/records/original-export.js';
import { CallerSchema, UserSchema } from './user.schema.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { problemResponse, problemResponses } from '../responses.schema.js';
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
  /** Answer as the original service did where its web client reads the answer (KURA_ORIGINAL_HEADERS; decision 0098). */
  originalClient?: boolean;
}

/** An imported submitter (`legacy/<id>`) as a public identity the original web client shows by its name. */
function legacyIdentity(id: string): Static<typeof UserSchema> {
  return { id, name: legacySubmitterName(id), avatar: null, provider: LEGACY_PROVIDER };
}

/** The original service's refusals were plain text, which its web client reads as "no user" (a JSON body it would read as one). */
const sendPlainRefusal = (reply: FastifyReply, status: 401 | 404, text: string) => reply.code(status).type('text/plain; charset=utf-8').send(text);

/**
 * `GET /api/user` (the caller; with `?optional=true` null for nobody) and
 * `GET /api/user/{provider}/{id}` (anyone's public identity; with `?optional=true` null for a
 * submitter without an account). For the original web client (`originalClient`): nobody is a
 * plain-text 401, an imported submitter its legacyIdentity, a submitter without an account a
 * plain-text 404.
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
          if ((request.query as Record<string, unknown>).optional === 'true') return guard.optional(request, reply);
          if (!deps.originalClient) return guard.requireCaller(request, reply);
          await guard.optional(request, reply);
          if (request.caller === null) return sendPlainRefusal(reply, 401, 'please log in first');
        },
        schema: {
          operationId: 'getCurrentUser',
          summary: 'The logged-in caller (401 when not logged in; null with optional=true)',
          description:
            'With KURA_ORIGINAL_HEADERS=true the 401 is plain text, as the original service answered: its web client shows the login only when the body is not JSON.',
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
          description:
            'With KURA_ORIGINAL_HEADERS=true, for the original web client: an imported submitter (`legacy/…`) is shown as `<id> (automatic)` (the old instance’s host name) or `<id> (imported)` (a bare id), and the 404 is plain text.',
          params: UserParamsSchema,
          querystring: UserQuerySchema,
          response: { 200: Type.Union([UserSchema, Type.Null()]), 404: problemResponse('`user_not_found`'), ...problemResponses },
        },
      },
      async (request, reply) => {
        const { provider, id } = request.params;
        const user = await deps.users.find(provider, id);
        if (user !== null) return presentUser(user);
        if (request.query.optional === true) return null;
        if (deps.originalClient && provider === LEGACY_PROVIDER) return legacyIdentity(id);
        if (deps.originalClient) return sendPlainRefusal(reply, 404, 'requested user not found');
        throw new AppError('not_found', 'user_not_found', `There is no user ${provider}/${id}.`);
      },
    );
  };
}
