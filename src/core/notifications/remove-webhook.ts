import { AppError } from '../errors.js';
import type { WebhookRepo } from './ports.js';

/** Removes a webhook and its deliveries; nothing more is sent to it. Throws `webhook_not_found`. */
export async function removeWebhook(deps: { webhooks: WebhookRepo }, id: string): Promise<void> {
  if (!(await deps.webhooks.remove(id))) throw webhookNotFound(id);
}

export function webhookNotFound(id: string): AppError {
  return new AppError('not_found', 'webhook_not_found', `There is no webhook ${id}.`);
}
