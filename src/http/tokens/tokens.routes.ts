import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { API_TOKEN_LIMIT, createApiToken } from '../../core/accounts/create-api-token.js';
import { AppError } from '../../core/errors.js';
import type { ApiTokenInfo } from '../../core/accounts/ports.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponse, problemResponses } from '../responses.schema.js';
import type { AccountDeps } from '../auth/account-deps.js';

const TokenSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ApiToken' },
);
const NewTokenSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    token: Type.String({ description: 'Send as `Authorization: Bearer <token>`. Shown this once: only its hash is kept.' }),
  },
  { $id: 'NewApiToken' },
);
const CreateBodySchema = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for, 1–100 characters' })),
});
const TokenParamsSchema = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$', description: 'A token id from GET /api/tokens' }) });

const present = (info: ApiTokenInfo) => ({
  id: info.id,
  name: info.name,
  createdAt: info.createdAt.toISOString(),
  lastUsedAt: info.lastUsedAt?.toISOString() ?? null,
});

/** What the API token routes use. */
export interface TokenRouteDeps extends Pick<AccountDeps, 'apiTokens'> {
  guard: Pick<Guard, 'requireCaller'>;
}

/** `POST|GET /api/tokens`, `DELETE /api/tokens/{id}`: the caller's API tokens for scripts. */
export function tokenRoutes(deps: TokenRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    app.post(
      '/tokens',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'createToken',
          summary: `Creates an API token; its secret is in this answer only (at most ${API_TOKEN_LIMIT} a user)`,
          body: Type.Optional(CreateBodySchema),
          response: {
            201: NewTokenSchema,
            409: problemResponse(`\`token_limit_reached\`: the caller has ${API_TOKEN_LIMIT} tokens; revoke one first`),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const created = await createApiToken(deps, { userId: caller.user.id, name: request.body?.name ?? 'api' });
        return reply.code(201).send({ id: created.id, name: created.name, createdAt: created.createdAt.toISOString(), token: created.token });
      },
    );
    app.get(
      '/tokens',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'listTokens',
          summary: 'The caller’s API tokens (without their secrets)',
          response: { 200: Type.Array(TokenSchema), ...problemResponses },
        },
      },
      async (request) => {
        const caller = callerOf(request);
        return (await deps.apiTokens.list(caller.user.id)).map(present);
      },
    );
    app.delete(
      '/tokens/:id',
      {
        onRequest: guard.requireCaller,
        schema: {
          operationId: 'revokeToken',
          summary: 'Revokes one of the caller’s API tokens (204)',
          params: TokenParamsSchema,
          response: { 204: NoContentSchema, 404: problemResponse('`token_not_found`'), ...problemResponses },
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        if (!(await deps.apiTokens.delete(caller.user.id, request.params.id))) {
          throw new AppError('not_found', 'token_not_found', `You have no API token ${request.params.id}.`);
        }
        return sendNoContent(reply);
      },
    );
  };
}
