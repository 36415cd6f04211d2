import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { submitterOf } from '../../core/accounts/account.js';
import { addWebhook } from '../../core/notifications/add-webhook.js';
import { enableWebhook } from '../../core/notifications/enable-webhook.js';
import { listDeliveries } from '../../core/notifications/list-deliveries.js';
import { listWebhooks } from '../../core/notifications/list-webhooks.js';
import type { WebhookRepo } from '../../core/notifications/ports.js';
import type { Webhook } from '../../core/notifications/webhook.js';
import { removeWebhook } from '../../core/notifications/remove-webhook.js';
import { sendTestEvent } from '../../core/notifications/send-test-event.js';
import { callerOf, type Guard } from '../auth/guard.js';
import { sendNoContent } from '../problem.js';
import { NoContentSchema, problemResponses } from '../responses.schema.js';
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

/** What the webhook routes work on. */
export interface WebhookRouteDeps {
  webhooks: WebhookRepo;
  refuseUrl: (url: string) => string | null;
  isDiscord: (url: string) => boolean;
}

/** `GET/POST/DELETE /api/webhooks`, their deliveries and a test event: admins only, checked before the input. */
export function webhookRoutes(deps: WebhookRouteDeps, guard: Guard): FastifyPluginAsyncTypebox {
  const present = (webhook: Webhook) => presentWebhook(webhook, deps.isDiscord);
  return async (app) => {
    app.get(
      '/webhooks',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'listWebhooks',
          summary: 'Admin: every webhook, oldest first (never their secrets)',
          response: { 200: WebhookListSchema, ...problemResponses },
        },
      },
      async () => (await listWebhooks(deps)).map(present),
    );
    app.post(
      '/webhooks',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'createWebhook',
          summary: 'Admin: adds a webhook; the answer holds its signing secret, shown this once (201)',
          body: CreateWebhookSchema,
          response: { 201: CreatedWebhookSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        const { webhook, secret } = await addWebhook(deps, { ...request.body, createdBy: submitterOf(callerOf(request).user) });
        return reply.code(201).send({ ...present(webhook), secret });
      },
    );
    app.delete(
      '/webhooks/:id',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'deleteWebhook',
          summary: 'Admin: removes a webhook and its deliveries (204)',
          params: WebhookParamsSchema,
          response: { 204: NoContentSchema, ...problemResponses },
        },
      },
      async (request, reply) => {
        await removeWebhook(deps, request.params.id);
        return sendNoContent(reply);
      },
    );
    app.post(
      '/webhooks/:id/enable',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'enableWebhook',
          summary: 'Admin: enables a webhook again (clears disabledAt and failingSince); its pending deliveries go out at once',
          params: WebhookParamsSchema,
          response: { 200: WebhookSchema, ...problemResponses },
        },
      },
      async (request) => present(await enableWebhook(deps, request.params.id)),
    );
    app.get(
      '/webhooks/:id/deliveries',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'listWebhookDeliveries',
          summary: "Admin: a webhook's latest deliveries, newest first: event, status, response code, duration, next try",
          params: WebhookParamsSchema,
          response: { 200: DeliveryListSchema, ...problemResponses },
        },
      },
      async (request) => (await listDeliveries(deps, request.params.id)).map(presentDelivery),
    );
    app.post(
      '/webhooks/:id/test',
      {
        onRequest: guard.requireAdmin,
        schema: {
          operationId: 'testWebhook',
          summary: 'Admin: sends this webhook a webhook.test event (202)',
          params: WebhookParamsSchema,
          response: { 202: TestEventSchema, ...problemResponses },
        },
      },
      async (request, reply) => reply.code(202).send({ eventId: await sendTestEvent(deps, request.params.id, new Date()) }),
    );
  };
}
