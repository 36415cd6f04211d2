import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { hashSecret, roleOf, safeNextPath } from '../../core/accounts/account.js';
import { logInLocally } from '../../core/accounts/log-in-locally.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponses, redirectResponse } from '../responses.schema.js';
import { presentCaller } from '../user/user.presenter.js';
import type { AccountSlices } from './accounts-context.js';
import { CallerSchema } from '../user/user.schema.js';
import { LocalLoginSchema } from './auth.schema.js';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie } from './cookies.js';
import { refuseCrossSiteLogin, type Guard } from './guard.js';

/** `POST /auth/local` (local accounts) and `POST /auth/logout`. */
export function localAuthRoutes(accounts: AccountSlices['localAuth'], guard: Guard, publicUrl: string): FastifyPluginAsyncTypebox {
  // a login or logout forced by another site is refused too (login CSRF)
  const refuseCrossOrigin = (request: FastifyRequest) => refuseCrossSiteLogin(request, guard.publicOrigin);
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
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        refuseCrossOrigin(request);
        const { username, password, next } = request.body;
        const { sessionToken, user } = await logInLocally(
          { ...accounts, log: request.log },
          { username, password, clientIp: request.ip, rule: accounts.settings.loginLimit },
        );
        setSessionCookie(reply, publicUrl, sessionToken);
        if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return reply.redirect(`${publicUrl}${safeNextPath(next)}`, 303);
        return presentCaller({ user, role: roleOf(user, accounts.settings.admins), via: 'session' });
      },
    );

    app.post(
      '/auth/logout',
      { schema: { operationId: 'logOut', summary: 'Ends the session of the cookie (204)', response: { 204: NoContentSchema, ...problemResponses } } },
      async (request, reply) => {
        refuseCrossOrigin(request);
        const token = request.cookies[SESSION_COOKIE];
        if (token !== undefined) await accounts.sessions.delete(hashSecret(token));
        clearSessionCookie(reply, publicUrl);
        return sendNoContent(reply);
      },
    );
  };
}
