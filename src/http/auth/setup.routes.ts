import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { setUpFirstAdmin } from '../../core/accounts/set-up-first-admin.js';
import { problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { presentCaller } from '../user/user.presenter.js';
import { CallerSchema } from '../user/user.schema.js';
import { SetupSchema } from './auth.schema.js';
import { setSessionCookie } from './cookies.js';
import { refuseCrossSiteLogin } from './guard.js';
import type { AccountDeps, AccountSettings } from './account-deps.js';

/** What the first admin's setup uses. */
export interface SetupRouteDeps extends Pick<AccountDeps, 'setup' | 'passwords' | 'sessions' | 'rateLimiter'> {
  settings: Pick<AccountSettings, 'admins' | 'loginLimit'>;
  publicUrl: string;
}

/** `POST /auth/setup`: the first admin of a fresh instance, made with the setup token from the server log. */
export function setupRoutes(deps: SetupRouteDeps): FastifyPluginAsyncTypebox {
  const { publicUrl } = deps;
  const publicOrigin = new URL(publicUrl).origin;
  return async (app) => {
    app.post(
      '/auth/setup',
      {
        schema: {
          operationId: 'setUpFirstAdmin',
          summary: 'Creates the first admin (a local account) with the setup token from the server log, and opens its session; 409 once an admin exists',
          body: SetupSchema,
          response: {
            200: CallerSchema,
            403: problemResponse('`invalid_setup_token` (counted against the login limit), `cross_origin_refused`'),
            409: problemResponse('`setup_done`: the instance has an admin'),
            ...rateLimitedResponse,
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        refuseCrossSiteLogin(request, publicOrigin);
        const { token, username, password } = request.body;
        const { sessionToken, user } = await setUpFirstAdmin(deps, {
          token,
          username,
          password,
          clientIp: request.ip,
          rule: deps.settings.loginLimit,
          admins: deps.settings.admins,
        });
        setSessionCookie(reply, publicUrl, sessionToken);
        request.log.info({ admin: user.name }, `first admin created: ${user.name} (the setup token is void now)`);
        return presentCaller({ user, role: 'admin', via: 'session' });
      },
    );
  };
}
