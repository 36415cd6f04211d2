// Decisions: docs/decisions/0058-webhook-delivery.md
import { Webhook as Signer } from 'standardwebhooks';
import type { WebhookSender } from '../../core/notifications/ports.js';
import type { OutboxEvent, WebhookTarget } from '../../core/notifications/webhook.js';
import { publicErrorWords } from '../../core/sources/public-url.js';
import type { OutboundClient } from '../outbound/outbound-client.js';

/** The JSON body one webhook gets for one event (the Standard Webhooks envelope, or a Discord message). */
export type BodyFor = (webhook: WebhookTarget, event: OutboxEvent) => unknown;

/**
 * Sends events as Standard Webhooks (standardwebhooks.com): the body `bodyFor` makes, signed with
 * the webhook's `whsec_` secret in `webhook-id` (the event's id, the same on every try),
 * `webhook-timestamp` and `webhook-signature`, posted through the SSRF-guarded client (private
 * targets refused at each try unless allowed; 10 s at most). A refusal or a network fault is an
 * attempt without a status code.
 */
export function createWebhookSender(deps: { outbound: Pick<OutboundClient, 'send'>; bodyFor: BodyFor }): WebhookSender {
  return {
    async send(webhook, event, at) {
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      try {
        const body = JSON.stringify(deps.bodyFor(webhook, event));
        const signature = new Signer(webhook.secret).sign(event.id, at, body);
        const response = await deps.outbound.send(webhook.url, {
          method: 'POST',
          maxRedirects: 0,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Kura-Webhooks',
            'webhook-id': event.id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signature,
          },
          body,
        });
        await response.body.dump().catch(() => undefined);
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return { statusCode: response.statusCode, durationMs: elapsed(), error: ok ? null : `HTTP ${response.statusCode}` };
      } catch (error) {
        // a personal webhook's deliveries are read by its owner, not only the admin: the error's public words (no internal address)
        return { statusCode: null, durationMs: elapsed(), error: webhook.owner === null ? (error as Error).message : publicErrorWords(error) };
      }
    },
  };
}

/**
 * The Standard Webhooks body: `{type, timestamp, data}`, `data` the record as /api/history shows it
 * with what else the event carries beside it (`moment.added`: its `moment`), or
 * (`presentFollow`) a follow event's follow as /api/follows shows it.
 */
export function standardBody(
  event: OutboxEvent,
  present: (record: NonNullable<OutboxEvent['record']>) => unknown,
  presentFollow?: (follow: NonNullable<OutboxEvent['follow']>) => unknown,
): unknown {
  const data = event.record
    ? { ...(present(event.record) as object), ...event.data }
    : event.follow && presentFollow
      ? presentFollow(event.follow)
      : (event.data ?? {});
  return { type: event.type, timestamp: event.occurredAt.toISOString(), data };
}
