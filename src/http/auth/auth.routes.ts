import type { FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import { hashSecret, roleOf, safeNextPath } from '../../core/account.js';
import { beginLogin } from '../../core/begin-login.js';
import { completeLogin } from '../../core/complete-login.js';
import { AppError } from '../../core/errors.js';
import { logInLocally } from '../../core/log-in-locally.js';
import { problemResponses } from '../problem.js';
import { CallerSchema, LocalLoginSchema, LoginQuerySchema, ProviderParamsSchema, ProvidersSchema } from './auth.schema.js';
import type { AccountDeps } from './accounts-context.js';
import { clearLoginCookie, clearSessionCookie, LOGIN_COOKIE, SESSION_COOKIE, setLoginCookie, setSessionCookie } from './cookies.js';
import { isSameOrigin, type Guard } from './guard.js';
import { presentCaller } from '../user/user.presenter.js';

/** `/auth/*`: external logins (redirect and callback), local login, logout. */
export function authRoutes(accounts: AccountDeps, guard: Guard, publicUrl: string): FastifyPluginAsync {
  const refuseCrossOrigin = (request: Parameters<typeof isSameOrigin>[0]) => {
    // a login or logout forced by another site is refused too (login CSRF)
    if ((request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined) && !isSameOrigin(request, guard.publicOrigin)) {
      throw new AppError('forbidden', 'cross_origin_refused', `Log in and out from ${guard.publicOrigin} itself.`);
    }
  };
  return async (app) => {
    app.get('/auth/providers', { schema: { summary: 'Login providers enabled here', response: { 200: ProvidersSchema } } }, async () => ({
      providers: [...accounts.providers.values()].map((p) => ({ id: p.id, name: p.name, loginUrl: `${publicUrl}/auth/${p.id}/login` })),
      local: true,
    }));

    app.get<{ Params: Static<typeof ProviderParamsSchema>; Querystring: Static<typeof LoginQuerySchema> }>(
      '/auth/:provider/login',
      { schema: { summary: 'Starts a login: redirects (302) to the provider', params: ProviderParamsSchema, querystring: LoginQuerySchema, response: problemResponses } },
      async (request, reply) => {
        const { attemptId, redirectTo } = await beginLogin(accounts, { provider: request.params.provider, next: request.query.next });
        setLoginCookie(reply, publicUrl, attemptId);
        return reply.redirect(redirectTo.href, 302);
      },
    );

    app.get<{ Params: Static<typeof ProviderParamsSchema> }>(
      '/auth/:provider/callback',
      { schema: { summary: 'Where the provider sends the browser back; opens a session and redirects (302) to `next`', params: ProviderParamsSchema, response: problemResponses } },
      async (request, reply) => {
        clearLoginCookie(reply, publicUrl);
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        const { sessionToken, nextPath } = await completeLogin(accounts, {
          provider: request.params.provider,
          attemptId: request.cookies[LOGIN_COOKIE],
          callbackUrl: new URL(`${publicUrl}/auth/${request.params.provider}/callback${query}`),
        });
        setSessionCookie(reply, publicUrl, sessionToken);
        return reply.redirect(`${publicUrl}${nextPath}`, 302);
      },
    );

    app.post<{ Body: Static<typeof LocalLoginSchema> }>(
      '/auth/local',
      { schema: { summary: 'Logs a local account in (JSON or an HTML form); opens a session', body: LocalLoginSchema, response: { 200: CallerSchema, ...problemResponses } } },
      async (request, reply) => {
        refuseCrossOrigin(request);
        const { username, password, next } = request.body;
        const { sessionToken, user } = await logInLocally(accounts, { username, password, clientIp: request.ip, rule: accounts.settings.loginLimit });
        setSessionCookie(reply, publicUrl, sessionToken);
        if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) return reply.redirect(`${publicUrl}${safeNextPath(next)}`, 303);
        return presentCaller({ user, role: roleOf(user, accounts.settings.admins), via: 'session' });
      },
    );

    app.post('/auth/logout', { schema: { summary: 'Ends the session of the cookie (204)', response: problemResponses } }, async (request, reply) => {
      refuseCrossOrigin(request);
      const token = request.cookies[SESSION_COOKIE];
      if (token !== undefined) await accounts.sessions.delete(hashSecret(token));
      clearSessionCookie(reply, publicUrl);
      return reply.code(204).send();
    });
  };
}
