// Decisions: docs/decisions/0098-the-original-client-works-whole.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { beginLogin } from '../../core/accounts/begin-login.js';
import { completeLogin } from '../../core/accounts/complete-login.js';
import { isSetupPending } from '../../core/accounts/offer-setup-token.js';
import { problemResponse, problemResponses, redirectResponse } from '../responses.schema.js';
import { LoginQuerySchema, ProviderParamsSchema, ProvidersSchema } from './auth.schema.js';
import { clearLoginCookie, LOGIN_COOKIE, setLoginCookie, setSessionCookie } from './cookies.js';
import type { AccountDeps, AccountSettings } from './account-deps.js';

/** The refusals of a login through a provider. */
const NO_PROVIDER = { 404: problemResponse('`provider_not_found`: no such login provider is enabled') };
const LOGIN_FAILED = { 400: problemResponse('`login_failed`: the provider did not confirm the login') };

/** What the external-login routes use. */
export interface AuthRouteDeps extends Pick<AccountDeps, 'providers' | 'loginAttempts' | 'users' | 'sessions' | 'setup'> {
  settings: Pick<AccountSettings, 'admins'>;
  publicUrl: string;
  /** Whether anyone may read the archive (KURA_PUBLIC_READ): the UI shows strangers only the login when not. */
  publicRead: boolean;
  /** Also the original web client's login link, `/oauth/{provider}` (KURA_ORIGINAL_HEADERS; decision 0098). */
  originalClient?: boolean;
}

/** `/auth/providers`, `/auth/{provider}/login` and `/auth/{provider}/callback`: logins at external providers. */
export function authRoutes(deps: AuthRouteDeps): FastifyPluginAsyncTypebox {
  const { publicUrl } = deps;
  const startLogin = async (reply: FastifyReply, provider: string, next: string | undefined) => {
    const { attemptId, redirectTo } = await beginLogin(deps, { provider, next });
    setLoginCookie(reply, publicUrl, attemptId);
    return reply.redirect(redirectTo.href, 302);
  };
  return async (app) => {
    app.get(
      '/auth/providers',
      {
        schema: {
          operationId: 'listLoginProviders',
          summary: 'Login providers enabled here, and whether the first admin is still to be made',
          response: { 200: ProvidersSchema },
        },
      },
      async () => ({
        providers: [...deps.providers.values()].map((p) => ({ id: p.id, name: p.name, loginUrl: `${publicUrl}/auth/${p.id}/login` })),
        local: true,
        setupRequired: await isSetupPending(deps, deps.settings.admins),
        publicRead: deps.publicRead,
      }),
    );

    app.get(
      '/auth/:provider/login',
      {
        schema: {
          operationId: 'startLogin',
          summary: 'Starts a login: redirects (302) to the provider',
          params: ProviderParamsSchema,
          querystring: LoginQuerySchema,
          response: { 302: redirectResponse('To the provider'), ...NO_PROVIDER, ...problemResponses },
        },
      },
      async (request, reply) => startLogin(reply, request.params.provider, request.query.next),
    );
    if (deps.originalClient) {
      app.get(
        '/oauth/:provider',
        {
          schema: {
            operationId: 'startLoginOriginal',
            summary: 'The original web client’s login link: the same login as /auth/{provider}/login, back to / (KURA_ORIGINAL_HEADERS=true only)',
            params: ProviderParamsSchema,
            response: { 302: redirectResponse('To the provider'), ...NO_PROVIDER, ...problemResponses },
          },
        },
        async (request, reply) => startLogin(reply, request.params.provider, '/'),
      );
    }

    app.get(
      '/auth/:provider/callback',
      {
        schema: {
          operationId: 'finishLogin',
          summary: 'Where the provider sends the browser back; opens a session and redirects (302) to `next`',
          params: ProviderParamsSchema,
          response: { 302: redirectResponse('Logged in: to the page `next` named'), ...LOGIN_FAILED, ...NO_PROVIDER, ...problemResponses },
        },
      },
      async (request, reply) => {
        clearLoginCookie(reply, publicUrl);
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        const { sessionToken, nextPath } = await completeLogin(deps, {
          provider: request.params.provider,
          attemptId: request.cookies[LOGIN_COOKIE],
          callbackUrl: new URL(`${publicUrl}/auth/${request.params.provider}/callback${query}`),
        });
        setSessionCookie(reply, publicUrl, sessionToken);
        return reply.redirect(`${publicUrl}${nextPath}`, 302);
      },
    );
  };
}
