import Type, { type Static } from 'typebox';
import { EVENT_TYPES } from '../../core/notifications/webhook.js';

const time = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const webhookProperties = {
  id: Type.String(),
  url: Type.String(),
  discord: Type.Boolean({ description: 'a Discord webhook URL: sent a Discord message instead of the Standard Webhooks event' }),
  events: Type.Union([Type.Array(Type.Enum(EVENT_TYPES)), Type.Null()], { description: 'the event types it is sent; null: all' }),
  channelId: Type.Union([Type.String(), Type.Null()], { description: "only this channel's records; null: all" }),
  createdBy: Type.String({ description: 'who added it, provider/userId' }),
  owner: Type.Union([Type.String(), Type.Null()], {
    description: "a personal webhook's user (provider/userId): sent only the events of their submissions and follows; null: the instance's, sent everything",
  }),
  createdAt: Type.String({ format: 'date-time' }),
  failingSince: time('since when every delivery fails; null while the last one succeeded'),
  disabledAt: time('when it was disabled (after five days of failures); null: enabled'),
  disabledReason: Type.Union([Type.String(), Type.Null()]),
};

export const WebhookSchema = Type.Object(webhookProperties, { $id: 'Webhook' });
export type WebhookJson = Static<typeof WebhookSchema>;
export const WebhookListSchema = Type.Array(WebhookSchema);

export const CreatedWebhookSchema = Type.Object(
  { ...webhookProperties, secret: Type.String({ description: 'the whsec_ signing secret: shown this once, never again' }) },
  { $id: 'CreatedWebhook' },
);

export const CreateWebhookSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'where events are POSTed (http or https)' }),
    events: Type.Optional(
      Type.Union([Type.Array(Type.Enum(EVENT_TYPES), { maxItems: EVENT_TYPES.length }), Type.Null()], { description: 'absent or null: all' }),
    ),
    channelId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], { description: "only this channel's records" })),
  },
  { additionalProperties: false },
);

export const WebhookParamsSchema = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'A webhook id from GET /api/webhooks' }) });

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String({ description: 'the event id, sent as webhook-id on every try' }),
    eventType: Type.Enum(EVENT_TYPES),
    livestreamId: Type.Union([Type.String(), Type.Null()]),
    status: Type.Enum(['pending', 'delivered', 'given_up'] as const),
    attempts: Type.Integer({ minimum: 0 }),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()], { description: "the last try's HTTP status; null: no answer (refused, timed out, unreachable)" }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    lastDurationMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    lastAttemptAt: time('when it was last tried'),
    nextAttemptAt: time('when it is tried next; null once delivered or given up'),
    deliveredAt: time('when a 2xx answered'),
    givenUpAt: time('when retrying stopped (after 24 hours of failures)'),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery' },
);
export type DeliveryJson = Static<typeof DeliverySchema>;
export const DeliveryListSchema = Type.Array(DeliverySchema);

export const TestEventSchema = Type.Object({ eventId: Type.String({ description: 'the webhook.test event queued for delivery' }) });
