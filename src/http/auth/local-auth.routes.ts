// Decisions: docs/decisions/0098-the-original-client-works-whole.md
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret, roleOf, safeNextPath } from '../../core/accounts/account.js';
import { logInLocally } from '../../core/accounts/log-in-locally.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponse, problemResponses, rateLimitedResponse, redirectResponse } from '../responses.schema.js';
import { presentCaller } from '../user/user.presenter.js';
import { CallerSchema } from '../user/user.schema.js';
import { LocalLoginSchema } from './auth.schema.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './cookies.js';
import { refuseCrossSiteLogin } from './guard.js';
import type { AccountDeps, AccountSettings } from './account-deps.js';

/** What local login and logout use. */
export interface LocalAuthRouteDeps extends Pick<AccountDeps, 'users' | 'sessions' | 'passwords' | 'rateLimiter'> {
  settings: Pick<AccountSettings, 'admins' | 'loginLimit'>;
  publicUrl: string;
  /** Also the original web client's logout, `POST /logout` (KURA_ORIGINAL_HEADERS; decision 0098). */
  originalClient?: boolean;
}

/** `POST /auth/local` (local accounts) and `POST /auth/logout` (with `originalClient`, `POST /logout` too). */
export function localAuthRoutes(deps: LocalAuthRouteDeps): FastifyPluginAsyncTypebox {
  const { publicUrl } = deps;
  const publicOrigin = new URL(publicUrl).origin;
  // a login or logout forced by another site is refused too (login CSRF)
  const refuseCrossOrigin = (request: FastifyRequest) => refuseCrossSiteLogin(request, publicOrigin);
  const logOut = async (request: FastifyRequest, reply: FastifyReply) => {
    refuseCrossOrigin(request);
    const token = request.cookies[SESSION_COOKIE];
    if (token !== undefined) await deps.sessions.delete(hashSecret(token));
    clearSessionCookie(reply, publicUrl);
  };
  return async (app) => {
    // the HTML form of a login page without JavaScript; no other route reads a form
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    app.post(
      '/auth/local',
      {
        schema: {
          operationId: 'logInLocal',
          summary: 'Logs a local account in (JSON or an HTML form); opens a session',
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: LocalLoginSchema,
          response: {
            200: CallerSchema,
            303: redirectResponse('A form login: to the page `next` names (within this instance)'),
            401: problemResponse('`invalid_credentials`: no such user, or a wrong password'),
            ...rateLimitedResponse,
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        refuseCrossOrigin(request);
        const { username, password, next } = request.body;
        const { sessionToken, user } = await logInLocally(
          { ...deps, log: request.log },
          { username, password, clientIp: request.ip, rule: deps.settings.loginLimit },
        );
        setSessionCookie(reply, publicUrl, sessionToken);
        if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return reply.redirect(`${publicUrl}${safeNextPath(next)}`, 303);
        return presentCaller({ user, role: roleOf(user, deps.settings.admins), via: 'session' });
      },
    );

    app.post(
      '/auth/logout',
      { schema: { operationId: 'logOut', summary: 'Ends the session of the cookie (204)', response: { 204: NoContentSchema, ...problemResponses } } },
      async (request, reply) => {
        await logOut(request, reply);
        return sendNoContent(reply);
      },
    );
    if (deps.originalClient) {
      app.post(
        '/logout',
        {
          schema: {
            operationId: 'logOutOriginal',
            summary:
              'The original web client’s logout (a form post): ends the session of the cookie and redirects (303) to / (KURA_ORIGINAL_HEADERS=true only)',
            response: { 303: redirectResponse('To the front page'), ...problemResponses },
          },
        },
        async (request, reply) => {
          await logOut(request, reply);
          return reply.redirect(`${publicUrl}/`, 303);
        },
      );
    }
  };
}
