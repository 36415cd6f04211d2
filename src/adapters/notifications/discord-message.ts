// Decisions: docs/decisions/0060-discord-webhooks.md
// A Discord webhook ("Execute Webhook") accepts its own body, not a Standard Webhooks event: a
// delivery to a Discord URL sends this message instead of the raw event (issue 18).
import { clockOf } from '../../core/time-text.js';
import { discordTime, escapeMarkdown, formatDuration, formatSize, httpUrl, timestampOf } from './discord-text.js';

/** Discord's documented embed limits, counted in characters (we count UTF-16 units, never fewer). */
// total: title + description + field names and values + footer text + author name, over all embeds
export const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  authorName: 256,
  footerText: 2048,
  total: 6000,
} as const;

export interface DiscordEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface DiscordEmbed {
  title: string;
  description?: string;
  url?: string;
  color: number;
  timestamp?: string;
  author?: { name: string; url?: string };
  thumbnail?: { url: string };
  fields?: Array<{ name: string; value: string; inline?: boolean }>;
  footer?: { text: string };
}

export interface DiscordMessage {
  username: string;
  /** Nothing in a message Kura sends may ping anyone, whatever a stream's title says. */
  allowed_mentions: { parse: [] };
  embeds: [DiscordEmbed];
}

/** The fields of a record, as `/api/history` shows it, that a message reads (see record.schema.ts). */
interface RecordFields {
  id: string;
  title: string;
  channelName: string;
  channelId: string;
  thumbnail: string;
  scheduledStart: string;
  startedAt: string;
  downloadUrl: string;
  fileSizeBytes: number;
  length: number;
  /** livestream.failed: as /api/video/{id} shows it, if the event carries it */
  failureReason: string;
  /** livestream.removed: the takedown reason, if the event carries one */
  reason: string;
}

/** The fields of a follow, as `/api/follows` shows it, that a message reads (see follows.schema.ts). */
interface FollowFields {
  id: string;
  channelName: string;
  url: string;
  failingSince: string;
  accessError: string;
}

const RECORD_KINDS: Kinds<RecordFields> = {
  id: 'string',
  title: 'string',
  channelName: 'string',
  channelId: 'string',
  thumbnail: 'string',
  scheduledStart: 'string',
  startedAt: 'string',
  downloadUrl: 'string',
  fileSizeBytes: 'number',
  length: 'number',
  failureReason: 'string',
  reason: 'string',
};
const FOLLOW_KINDS: Kinds<FollowFields> = { id: 'string', channelName: 'string', url: 'string', failingSince: 'string', accessError: 'string' };

const COLORS: Record<string, number> = {
  'livestream.queued': 0x3498db,
  'livestream.live': 0xed4245,
  'livestream.finished': 0x57f287,
  'livestream.failed': 0xe67e22,
  'livestream.removed': 0x95a5a6,
  'moment.added': 0x9b59b6,
  'follow.unhealthy': 0xfee75c,
  'webhook.test': 0x5865f2,
};
const OTHER_COLOR = 0x99aab5;

/**
 * The Execute Webhook body for one Kura event: one embed naming the stream (linked to its archive
 * page), its channel and thumbnail, with what the event is about (duration and size once finished,
 * why it failed, when it is scheduled), every text cut with … to Discord's limits.
 */
export function discordMessage(event: DiscordEvent, options: { publicUrl: string }): DiscordMessage {
  const base = options.publicUrl.replace(/\/+$/, '');
  const embed =
    event.type === 'follow.unhealthy'
      ? followEmbed(event, base)
      : event.type.startsWith('livestream.') || event.type === 'moment.added'
        ? recordEmbed(event, base)
        : otherEmbed(event);
  return { username: 'Kura', allowed_mentions: { parse: [] }, embeds: [withinLimits(embed)] };
}

function recordEmbed(event: DiscordEvent, base: string): DiscordEmbed {
  const record = pick<RecordFields>(event.data, RECORD_KINDS);
  const removed = event.type === 'livestream.removed';
  const embed: DiscordEmbed = {
    title: record.title ?? record.id ?? 'A livestream',
    color: COLORS[event.type] ?? OTHER_COLOR,
    description: RECORD_WORDS[event.type] ?? `${event.type}`,
    ...timestampOf(event.timestamp),
    fields: [...(recordFields(event.type, record) ?? []), ...momentFields(event)],
  };
  // a removed record has no archive page left to link to
  if (record.id !== undefined && !removed) embed.url = httpUrl(`${base}/archive/${encodeURIComponent(record.id)}`);
  if (record.channelName !== undefined) {
    embed.author = { name: record.channelName };
    if (record.channelId !== undefined) embed.author.url = httpUrl(`${base}/channel/${encodeURIComponent(record.channelId)}`);
  }
  const thumbnail = removed ? undefined : httpUrl(record.thumbnail);
  if (thumbnail !== undefined) embed.thumbnail = { url: thumbnail };
  return embed;
}

const RECORD_WORDS: Record<string, string> = {
  'livestream.queued': 'Queued: Kura will record this stream when it starts.',
  'livestream.live': 'Live: Kura is recording it now.',
  'livestream.finished': 'Archived: the recording is ready to watch and download.',
  'livestream.failed': 'Failed: Kura could not archive this stream.',
  'livestream.removed': 'Removed from the archive by an admin.',
  'moment.added': 'A moment was marked.',
};

function recordFields(type: string, record: Partial<RecordFields>): DiscordEmbed['fields'] {
  const fields: NonNullable<DiscordEmbed['fields']> = [];
  if (type === 'livestream.queued' && record.scheduledStart !== undefined)
    fields.push({ name: 'Scheduled start', value: discordTime(record.scheduledStart), inline: true });
  if (type === 'livestream.live' && record.startedAt !== undefined) fields.push({ name: 'Started', value: discordTime(record.startedAt), inline: true });
  if (type === 'livestream.finished') {
    if (record.length !== undefined) fields.push({ name: 'Duration', value: formatDuration(record.length), inline: true });
    if (record.fileSizeBytes !== undefined) fields.push({ name: 'Size', value: formatSize(record.fileSizeBytes), inline: true });
    const download = httpUrl(record.downloadUrl);
    if (download !== undefined) fields.push({ name: 'Download', value: `[video](${download})`, inline: true });
  }
  if (type === 'livestream.failed') fields.push({ name: 'Reason', value: escapeMarkdown(record.failureReason ?? 'no reason was recorded') });
  if (type === 'livestream.removed' && record.reason !== undefined) fields.push({ name: 'Reason', value: escapeMarkdown(record.reason) });
  return fields;
}

/** A `moment.added` event's moment: when, and what. */
function momentFields(event: DiscordEvent): NonNullable<DiscordEmbed['fields']> {
  if (event.type !== 'moment.added' || typeof event.data !== 'object' || event.data === null) return [];
  const moment = pick<{ at: number; text: string }>((event.data as { moment?: unknown }).moment, { at: 'number', text: 'string' });
  if (moment.at === undefined || moment.text === undefined) return [];
  return [{ name: `At ${clockOf(moment.at)}`, value: escapeMarkdown(moment.text) }];
}

function followEmbed(event: DiscordEvent, base: string): DiscordEmbed {
  const follow = pick<FollowFields>(event.data, FOLLOW_KINDS);
  const since = follow.failingSince === undefined ? '' : ` since ${discordTime(follow.failingSince)}`;
  const embed: DiscordEmbed = {
    title: `Follow unhealthy: ${follow.channelName ?? follow.url ?? 'a follow'}`,
    color: COLORS[event.type] ?? OTHER_COLOR,
    description:
      follow.accessError === undefined
        ? `Every way Kura checks ${follow.url === undefined ? 'this source' : escapeMarkdown(follow.url)} has failed${since}: new streams may be missed.`
        : `The cookies no longer give access to the members-only streams of ${follow.url === undefined ? 'this source' : escapeMarkdown(follow.url)}${since}: they are not recorded.`,
    ...timestampOf(event.timestamp),
    fields: [
      ...(follow.accessError === undefined ? [] : [{ name: 'members-only', value: escapeMarkdown(follow.accessError) }]),
      ...signalErrors(event.data.signals),
    ],
  };
  if (follow.id !== undefined) embed.url = httpUrl(`${base}/follows/${encodeURIComponent(follow.id)}`);
  if (follow.channelName !== undefined) embed.author = { name: follow.channelName };
  return embed;
}

/** One field per signal that failed, with its last error's words. */
function signalErrors(signals: unknown): NonNullable<DiscordEmbed['fields']> {
  if (!Array.isArray(signals)) return [];
  const fields: NonNullable<DiscordEmbed['fields']> = [];
  for (const signal of signals as unknown[]) {
    const { signal: name, lastError } = pick<{ signal: string; lastError: string }>(signal, { signal: 'string', lastError: 'string' });
    if (lastError !== undefined) fields.push({ name: `${name ?? 'signal'}: last error`, value: escapeMarkdown(lastError) });
  }
  return fields;
}

function otherEmbed(event: DiscordEvent): DiscordEmbed {
  if (event.type === 'webhook.test') {
    return {
      title: 'Kura test event',
      description: 'This webhook works: Kura will post here.',
      color: COLORS[event.type] ?? OTHER_COLOR,
      ...timestampOf(event.timestamp),
    };
  }
  return { title: `Kura: ${event.type}`, color: OTHER_COLOR, ...timestampOf(event.timestamp) };
}

/** Cuts every text to its limit, keeps at most 25 fields, then shortens the description and drops fields until the whole fits 6000. */
function withinLimits(embed: DiscordEmbed): DiscordEmbed {
  const fitted: DiscordEmbed = { ...embed, title: truncate(embed.title, DISCORD_LIMITS.title) };
  if (embed.description !== undefined) fitted.description = truncate(embed.description, DISCORD_LIMITS.description);
  if (embed.author !== undefined) fitted.author = { ...embed.author, name: truncate(embed.author.name, DISCORD_LIMITS.authorName) };
  if (embed.footer !== undefined) fitted.footer = { text: truncate(embed.footer.text, DISCORD_LIMITS.footerText) };
  const fields = (embed.fields ?? [])
    .slice(0, DISCORD_LIMITS.fields)
    .map((field) => ({ ...field, name: truncate(field.name, DISCORD_LIMITS.fieldName), value: truncate(field.value, DISCORD_LIMITS.fieldValue) }));
  if (fields.length > 0) fitted.fields = fields;
  else delete fitted.fields;
  let over = embedLength(fitted) - DISCORD_LIMITS.total;
  if (over > 0 && fitted.description !== undefined) {
    fitted.description = truncate(fitted.description, Math.max(1, fitted.description.length - over));
    over = embedLength(fitted) - DISCORD_LIMITS.total;
  }
  while (over > 0 && fitted.fields !== undefined && fitted.fields.length > 0) {
    fitted.fields = fitted.fields.slice(0, -1);
    over = embedLength(fitted) - DISCORD_LIMITS.total;
  }
  return fitted;
}

/** The characters Discord counts toward an embed's 6000. */
export function embedLength(embed: DiscordEmbed): number {
  const texts = [embed.title, embed.description, embed.author?.name, embed.footer?.text, ...(embed.fields ?? []).flatMap((field) => [field.name, field.value])];
  return texts.reduce((sum, text) => sum + (text?.length ?? 0), 0);
}

/** At most `max` UTF-16 units, ending in … when cut, never splitting a surrogate pair. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  if (/[\uD800-\uDBFF]/.test(text.charAt(cut - 1))) cut -= 1;
  return `${text.slice(0, cut)}…`;
}

type Kinds<T> = { [K in keyof T]: T[K] extends number ? 'number' : 'string' };

/** The named fields of an untrusted object that have a usable value of their kind: a non-empty string, a finite number ≥ 0. */
function pick<T>(data: unknown, kinds: Kinds<T>): Partial<T> {
  const picked: Record<string, string | number> = {};
  if (typeof data !== 'object' || data === null) return picked as Partial<T>;
  for (const [key, kind] of Object.entries(kinds)) {
    const value = (data as Record<string, unknown>)[key];
    if (kind === 'string' && typeof value === 'string' && value !== '') picked[key] = value;
    if (kind === 'number' && typeof value === 'number' && Number.isFinite(value) && value >= 0) picked[key] = value;
  }
  return picked as Partial<T>;
}
