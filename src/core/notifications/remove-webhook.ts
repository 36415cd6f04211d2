import { AppError } from '../errors.js';
import type { WebhookRepo } from './ports.js';
import type { Webhook } from './webhook.js';

/**
 * Removes a webhook and its deliveries; nothing more is sent to it. With an `owner`, only one of
 * theirs (another's is not found). Throws `webhook_not_found`.
 */
export async function removeWebhook(deps: { webhooks: WebhookRepo }, id: string, owner?: string): Promise<void> {
  await findWebhook(deps, id, owner);
  if (!(await deps.webhooks.remove(id))) throw webhookNotFound(id);
}

/** The webhook `id`; with an `owner`, only if it is theirs (an admin, without one, reaches every webhook). Throws `webhook_not_found`. */
export async function findWebhook(deps: { webhooks: WebhookRepo }, id: string, owner?: string): Promise<Webhook> {
  const webhook = await deps.webhooks.get(id);
  if (webhook === null || (owner !== undefined && webhook.owner !== owner)) throw webhookNotFound(id);
  return webhook;
}

export function webhookNotFound(id: string): AppError {
  return new AppError('not_found', 'webhook_not_found', `There is no webhook ${id}.`);
}
