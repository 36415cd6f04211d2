// Decisions: docs/decisions/0060-discord-webhooks.md
// Which webhook URLs are Discord's: a delivery to one is sent a Discord message (discord-message.ts) instead of the raw event.

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com', 'ptb.discordapp.com', 'canary.discordapp.com']);
// /api/webhooks/{snowflake}/{token}, optionally versioned (/api/v10/webhooks/…); not the /slack or /github variants
const WEBHOOK_PATH = /^\/api(?:\/v\d{1,2})?\/webhooks\/\d{15,25}\/[A-Za-z0-9_-]{30,100}\/?$/;

/** True for a Discord "Execute Webhook" URL (https, a Discord host, /api/webhooks/{id}/{token}); false for lookalikes. */
export function isDiscordWebhookUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === 'https:' &&
    parsed.port === '' &&
    parsed.username === '' &&
    parsed.password === '' &&
    DISCORD_HOSTS.has(parsed.hostname) &&
    WEBHOOK_PATH.test(parsed.pathname)
  );
}
