import { publicFollow } from '../../core/follows/public-follow.js';
import { publicRecord } from '../../core/record-actions/public-record.js';
import { discordMessage, type DiscordEvent } from './discord-message.js';
import { isDiscordWebhookUrl } from './discord-url.js';
import { standardBody, type BodyFor } from './webhook-sender.js';

/**
 * What each webhook is sent for an event: the Standard Webhooks envelope with `data` the record as
 * /api/history shows it (a follow as /api/follows does; both through core's public shapes), to the
 * admin for an instance webhook, to the public (URLs redacted) for a personal one. A Discord
 * webhook URL gets a Discord message instead.
 */
export function webhookBodies(publicUrl: string): BodyFor {
  return (webhook, event) => {
    const audience = webhook.owner === null ? 'admin' : 'public';
    // a follow as /api/follows showed it at the check that made it unhealthy
    const follow = (f: NonNullable<typeof event.follow>) => publicFollow(f, f.lastCheckedAt ?? event.occurredAt, audience);
    const standard = standardBody(event, (record) => publicRecord(record, publicUrl, audience), follow) as DiscordEvent;
    if (!isDiscordWebhookUrl(webhook.url)) return standard;
    // the embed of a failed stream says why, which /api/history's record does not carry
    const data = event.record === null ? standard.data : { ...standard.data, failureReason: event.record.failureReason };
    return discordMessage({ ...standard, data }, { publicUrl });
  };
}
