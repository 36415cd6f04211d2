import { deliverWebhooks } from '../../core/notifications/deliver-webhooks.js';
import { redactUrl, redactUrlsIn } from '../../core/sources/public-url.js';
import { defineJob } from '../job-definition.js';
import type { JobWork } from '../job-work.js';
import { NoPayload } from '../runtime/payloads.js';

type Work = Pick<JobWork, 'webhooks' | 'log'>;

/**
 * Sends the due webhook deliveries, then asks for the next drain when the next delivery is due.
 * Woken by each new event, by the deliveries' own retry times, and by the webhook wake-up loop's
 * backstop when a delivery is found due. Does nothing where webhooks are not wired (a test's worker).
 */
export const deliverWebhooksJob = defineJob({
  name: 'deliver-webhooks',
  payload: NoPayload,
  // a failed drain waits for the next ask or the backstop: the deliveries keep their own tries, in webhook_deliveries
  policy: { retryLimit: 0, expireInSeconds: 900 },
  concurrency: () => 1,
  // one waits at a time, brought forward when asked for sooner
  dedup: { key: () => 'webhooks', oneWaiting: true },
  async handle(work: Work) {
    if (work.webhooks === undefined) return;
    const { next, disabled } = await deliverWebhooks(work.webhooks.deps);
    for (const webhook of disabled) {
      const url = redactUrl(webhook.url);
      work.log?.warn({ webhook: webhook.id, url }, `webhook disabled: ${webhook.id} ${url}: ${redactUrlsIn(webhook.reason)}`);
    }
    if (next !== null) await work.webhooks.drains.deliverWebhooks(next);
  },
  // each delivery keeps its own tries and next time; the next drain (the backstop's at the latest) sends them
  onFailure: async () => undefined,
});
