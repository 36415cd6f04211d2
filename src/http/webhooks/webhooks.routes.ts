// Decisions: docs/decisions/0059-personal-webhooks.md
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { submitterOf } from '../../core/accounts/account.js';
import { addWebhook } from '../../core/notifications/add-webhook.js';
import { enableWebhook } from '../../core/notifications/enable-webhook.js';
import { listDeliveries } from '../../core/notifications/list-deliveries.js';
import { listWebhooks } from '../../core/notifications/list-webhooks.js';
import type { WebhookRepo } from '../../core/notifications/ports.js';
import type { Webhook } from '../../core/notifications/webhook.js';
import { describeRate, type RateLimiter } from '../../core/rate-limit.js';
import { removeWebhook } from '../../core/notifications/remove-webhook.js';
import { sendTestEvent } from '../../core/notifications/send-test-event.js';
import { PERSONAL_WEBHOOK_LIMIT, TEST_EVENT_RATE, WEBHOOK_CREATION_RATE } from '../../core/notifications/webhook.js';
import type { CheckAddresses } from '../../core/sources/ports.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { sendNoContent } from '../problem.js';
import type { TypeboxApp } from '../typebox-app.js';
import { NoContentSchema, problemResponse, problemResponses, rateLimitedResponse } from '../responses.schema.js';
import { presentDelivery, presentWebhook } from './webhook.presenter.js';
import {
  CreatedWebhookSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  TestEventSchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookSchema,
} from './webhooks.schema.js';

/** What the webhook routes work on, as the composition root wires it. */
export interface WebhookDeps {
  webhooks: WebhookRepo;
  refuseUrl: (url: string) => string | null;
  checkAddresses: CheckAddresses;
  isDiscord: (url: string) => boolean;
  /** Counts creations per caller and test events per webhook. */
  rateLimiter: RateLimiter;
}

/** What the webhook routes use: WebhookDeps, and the guard that admits admins and callers. */
export interface WebhookRouteDeps extends WebhookDeps {
  guard: Pick<Guard, 'requireAdmin' | 'requireCaller'>;
}

/** One set of the webhook routes: where, who may call them, and whose webhooks they reach. */
interface RouteSet {
  path: string;
  onRequest: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** The owner the caller is limited to; undefined: every webhook (admins). */
  ownerOf: (request: FastifyRequest) => string | undefined;
  /** Operation ids: `list${name}s`, `create${name}`… */
  name: string;
  /** Summaries start with it. */
  who: string;
  /** Personal webhooks: PERSONAL_WEBHOOK_LIMIT a user. */
  personal: boolean;
}

/**
 * `GET/POST/DELETE /api/webhooks`, their deliveries and a test event for admins (every webhook),
 * and the same under `/api/user/webhooks` for any logged-in user (their personal webhooks, sent
 * only their records' events; another's is not found). Callers are checked before the input.
 */
export function webhookRoutes(deps: WebhookRouteDeps): FastifyPluginAsyncTypebox {
  const { guard } = deps;
  return async (app) => {
    await app.register(
      routeSet(deps, { path: '/webhooks', onRequest: guard.requireAdmin, ownerOf: () => undefined, name: 'Webhook', who: 'Admin:', personal: false }),
    );
    await app.register(
      routeSet(deps, {
        path: '/user/webhooks',
        onRequest: guard.requireCaller,
        ownerOf: (request) => submitterOf(callerOf(request).user),
        name: 'PersonalWebhook',
        who: `Your webhooks (events of your submissions and follows, at most ${PERSONAL_WEBHOOK_LIMIT}):`,
        personal: true,
      }),
    );
  };
}

function routeSet(deps: WebhookDeps, set: RouteSet): FastifyPluginAsyncTypebox {
  return async (app) => {
    webhookListRoutes(app, deps, set);
    webhookActionRoutes(app, deps, set);
  };
}

/** The set's webhooks: listed, added, removed. */
function webhookListRoutes(app: TypeboxApp, deps: WebhookDeps, set: RouteSet): void {
  const { path, onRequest, ownerOf, name, who } = set;
  const present = (webhook: Webhook) => presentWebhook(webhook, deps.isDiscord);
  // only personal webhooks are counted
  const limitResponse = set.personal ? { 409: problemResponse(`\`webhook_limit_reached\`: the caller has ${PERSONAL_WEBHOOK_LIMIT} webhooks`) } : {};
  app.get(
    path,
    {
      onRequest,
      schema: {
        operationId: `list${name}s`,
        summary: `${who} oldest first (never their secrets)`,
        response: { 200: WebhookListSchema, ...problemResponses },
      },
    },
    async (request) => (await listWebhooks(deps, ownerOf(request))).map(present),
  );
  app.post(
    path,
    {
      onRequest,
      schema: {
        operationId: `create${name}`,
        summary: `${who} adds one; the answer holds its signing secret, shown this once (201); ${describeRate(WEBHOOK_CREATION_RATE)} a caller`,
        body: CreateWebhookSchema,
        response: {
          201: CreatedWebhookSchema,
          ...limitResponse,
          ...rateLimitedResponse,
          400: problemResponse('`invalid_webhook`: the URL or a field is not valid (the detail names it)'),
          ...problemResponses,
        },
      },
    },
    async (request, reply) => {
      const owner = ownerOf(request);
      const input = { ...request.body, createdBy: submitterOf(callerOf(request).user), ...(owner === undefined ? {} : { owner }) };
      const { webhook, secret } = await addWebhook(deps, input);
      return reply.code(201).send({ ...present(webhook), secret });
    },
  );
  app.delete(
    `${path}/:id`,
    {
      onRequest,
      schema: {
        operationId: `delete${name}`,
        summary: `${who} removes one and its deliveries (204)`,
        params: WebhookParamsSchema,
        response: { 204: NoContentSchema, 404: problemResponse('`webhook_not_found`'), ...problemResponses },
      },
    },
    async (request, reply) => {
      await removeWebhook(deps, request.params.id, ownerOf(request));
      return sendNoContent(reply);
    },
  );
}

/** One webhook's actions: enabled again, its deliveries listed, a test event sent. */
function webhookActionRoutes(app: TypeboxApp, deps: WebhookDeps, set: RouteSet): void {
  const { path, onRequest, ownerOf, name, who } = set;
  const present = (webhook: Webhook) => presentWebhook(webhook, deps.isDiscord);
  app.post(
    `${path}/:id/enable`,
    {
      onRequest,
      schema: {
        operationId: `enable${name}`,
        summary: `${who} enables one again (clears disabledAt and failingSince); its pending deliveries go out at once`,
        params: WebhookParamsSchema,
        response: { 200: WebhookSchema, 404: problemResponse('`webhook_not_found`'), ...problemResponses },
      },
    },
    async (request) => present(await enableWebhook(deps, request.params.id, ownerOf(request))),
  );
  app.get(
    `${path}/:id/deliveries`,
    {
      onRequest,
      schema: {
        operationId: `list${name}Deliveries`,
        summary: `${who} one's latest deliveries, newest first: event, status, response code, duration, next try`,
        params: WebhookParamsSchema,
        response: { 200: DeliveryListSchema, 404: problemResponse('`webhook_not_found`'), ...problemResponses },
      },
    },
    async (request) => (await listDeliveries(deps, request.params.id, { owner: ownerOf(request) })).map(presentDelivery),
  );
  app.post(
    `${path}/:id/test`,
    {
      onRequest,
      schema: {
        operationId: `test${name}`,
        summary: `${who} sends one a webhook.test event (202); ${describeRate(TEST_EVENT_RATE)} a webhook`,
        params: WebhookParamsSchema,
        response: { 202: TestEventSchema, ...rateLimitedResponse, 404: problemResponse('`webhook_not_found`'), ...problemResponses },
      },
    },
    async (request, reply) => reply.code(202).send({ eventId: await sendTestEvent(deps, request.params.id, new Date(), ownerOf(request)) }),
  );
}
