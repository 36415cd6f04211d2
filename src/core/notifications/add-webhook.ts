// Decisions: docs/decisions/0015-limits-count-first.md, docs/decisions/0058-webhook-delivery.md, docs/decisions/0059-personal-webhooks.md
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import { mintId } from '../ids.js';
import type { CheckAddresses } from '../sources/ports.js';
import type { WebhookRepo } from './ports.js';
import { EVENT_TYPES, PERSONAL_WEBHOOK_LIMIT, WEBHOOK_CREATION_RATE, type EventType, type Webhook } from './webhook.js';
import { countAttempt, type RateLimiter } from '../rate-limit.js';

/** What an admin gives to add a webhook. */
export interface WebhookRequest {
  url: string;
  events?: string[] | null;
  channelId?: string | null;
}

const invalid = (detail: string) => new AppError('invalid', 'invalid_webhook', detail);

/**
 * Adds a webhook and makes its signing secret (`whsec_` + 24 random bytes, base64), returned here
 * only. `refuseUrl` says why a URL may not be a target (a private address without
 * KURA_ALLOW_PRIVATE_SOURCES), or null; `checkAddresses` why its host name's DNS answer may not
 * (the addresses named to the admin only: a personal webhook's owner is told the host is not
 * public). With an `owner`, a personal webhook: sent only the events of that user's records,
 * PERSONAL_WEBHOOK_LIMIT of them a user (the repo refuses more, even in parallel). With a
 * `rateLimiter` (an API caller; the operator's CLI has none), every attempt counts against
 * WEBHOOK_CREATION_RATE per `createdBy` first. Throws `invalid_webhook`, `webhook_limit_reached`,
 * `too_many_requests`.
 */
export async function addWebhook(
  deps: { webhooks: WebhookRepo; refuseUrl: (url: string) => string | null; checkAddresses: CheckAddresses; rateLimiter?: RateLimiter },
  request: WebhookRequest & { createdBy: string; owner?: string },
): Promise<{ webhook: Webhook; secret: string }> {
  if (deps.rateLimiter) await countAttempt({ rateLimiter: deps.rateLimiter }, 'webhook-create', request.createdBy, WEBHOOK_CREATION_RATE, 'new webhooks');
  const { url, events } = await checkWebhook(deps, request);
  const owner = request.owner ?? null;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const webhook = await deps.webhooks.add(
    { id: mintId(), url, events, channelId: request.channelId || null, secret, createdBy: request.createdBy, owner },
    PERSONAL_WEBHOOK_LIMIT,
  );
  if (webhook === null) {
    throw new AppError('conflict', 'webhook_limit_reached', `You have ${PERSONAL_WEBHOOK_LIMIT} webhooks already; remove one first.`);
  }
  return { webhook, secret };
}

/** The request's URL and event types as stored; throws `invalid_webhook`. */
async function checkWebhook(
  deps: { refuseUrl: (url: string) => string | null; checkAddresses: CheckAddresses },
  request: WebhookRequest & { owner?: string },
): Promise<{ url: string; events: EventType[] | null }> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw invalid(`${request.url} is not a URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`A webhook URL is http or https, not ${url.protocol}`);
  const refusal = deps.refuseUrl(url.href);
  if (refusal !== null) throw invalid(refusal);
  const pointsAt = await deps.checkAddresses(url.href);
  if (pointsAt !== null) throw invalid(request.owner === undefined ? pointsAt.detail : pointsAt.publicReason);
  const unknown = (request.events ?? []).filter((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) throw invalid(`Unknown event types: ${unknown.join(', ')}. Known: ${EVENT_TYPES.join(', ')}.`);
  const events = request.events && request.events.length > 0 ? [...new Set(request.events as EventType[])] : null;
  return { url: url.href, events };
}
