import { userInfo } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { addWebhook } from '../core/notifications/add-webhook.js';
import { listWebhooks } from '../core/notifications/list-webhooks.js';
import { removeWebhook } from '../core/notifications/remove-webhook.js';
import { createCommandLogger } from '../wiring/logger.js';
import { openDatabase } from '../wiring/database.js';
import { createWebhookParts } from '../wiring/notifications.js';
import { escapeControls, shown } from './terminal-text.js';
import { printListing } from './listing.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { USAGES } from './usage.js';

/** `kura webhook add|list|remove`: the instance's webhooks (admin). */
export const webhookCommand: Command = {
  run: (config, args) => runWebhook(config, args, createCommandLogger(config)),
};

/** Exit codes: 0 done, 1 failed (AppError thrown to the caller), 2 usage. */
async function runWebhook(config: Config, args: string[], log: Logger): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseCommandArgs(rest, { events: { type: 'string' }, channel: { type: 'string' }, json: { type: 'boolean' } });
  if (action !== 'add' && action !== 'list' && action !== 'remove') return usage('webhook takes add, list or remove');
  if (action !== 'list' && positionals.length !== 1) return usage(`webhook ${action} takes exactly one ${action === 'add' ? 'URL' : 'ID'}`);
  const database = await openDatabase(config, log, { role: 'command' });
  try {
    const deps = createWebhookParts(config, database.pool);
    const target = positionals[0] as string;
    if (action === 'remove') {
      await removeWebhook(deps, target);
      console.log(shown`kura: webhook ${target} removed`);
    } else if (action === 'list') {
      const webhooks = (await listWebhooks(deps)).map((w) => ({
        id: w.id,
        state: w.disabledAt ? `disabled (${w.disabledReason})` : w.failingSince ? 'failing' : 'ok',
        events: w.events?.join(',') ?? 'all',
        channel: w.channelId ?? 'all',
        url: w.url,
      }));
      printListing(['id', 'state', 'events', 'channel', 'url'], webhooks, values.json === true);
    } else {
      const events = values.events
        ?.split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '');
      const { webhook, secret } = await addWebhook(deps, {
        url: target,
        events: events ?? null,
        channelId: values.channel ?? null,
        createdBy: `cli/${userInfo().username}`,
      });
      console.log(`id: ${escapeControls(webhook.id)}\nsecret: ${secret}\n(the secret is shown this once: keep it where the receiver verifies signatures)`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

function usage(problem: string): number {
  console.error(`kura: ${escapeControls(problem)}\n\nUsage:\n${USAGES.webhook}`);
  return 2;
}
