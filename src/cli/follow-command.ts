// Decisions: docs/decisions/0110-follows-policy-pacing-api.md
import { userInfo } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { addFollow } from '../core/follows/add-follow.js';
import { healthOf, MEMBERS_ONLY_RULES, type MembersOnlyRule } from '../core/follows/follow.js';
import { listFollows } from '../core/follows/list-follows.js';
import { removeFollow } from '../core/follows/remove-follow.js';
import { updateFollow } from '../core/follows/update-follow.js';
import { describeRules, type RetentionChange } from '../core/retention/retention-rules.js';
import { createCommandLogger } from '../wiring/logger.js';
import { openDatabase, type Database } from '../wiring/database.js';
import { escapeControls, shown } from './terminal-text.js';
import { printListing } from './listing.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { USAGES } from './usage.js';

/** `kura follow add|list|remove|pause|resume`: the channels Kura follows. */
export const followCommand: Command = {
  run: (config, args) => runFollow(config, args, createCommandLogger(config)),
};

/** Exit codes: 0 done, 1 failed (AppError thrown to the caller), 2 usage. */
async function runFollow(config: Config, args: string[], log: Logger): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseCommandArgs(rest, {
    channel: { type: 'string' },
    title: { type: 'string' },
    'title-include': { type: 'string' },
    'title-exclude': { type: 'string' },
    'members-only': { type: 'string' },
    quality: { type: 'string' },
    'keep-last': { type: 'string' },
    'max-age-days': { type: 'string' },
    'max-gb': { type: 'string' },
    json: { type: 'boolean' },
  });
  const retention = retentionFlags(values);
  if (typeof retention === 'string') return usage(retention);
  const membersOnly = values['members-only'];
  if (membersOnly !== undefined && !(MEMBERS_ONLY_RULES as readonly string[]).includes(membersOnly)) return usage('--members-only is skip or include');
  const wantsOne = action === 'add' || action === 'remove' || action === 'pause' || action === 'resume' || action === 'retention';
  if (!wantsOne && action !== 'list') return usage(`follow takes add, list, retention, remove, pause or resume`);
  if (wantsOne && positionals.length !== 1) return usage(`follow ${action} takes exactly one ${action === 'add' ? 'URL' : 'ID'}`);
  const database = await openDatabase(config, log);
  try {
    const target = positionals[0] as string;
    if (action === 'list') return await list(database, values.json === true);
    if (action === 'remove') {
      await removeFollow(database, target);
      console.log(shown`kura: ${target} is no longer followed (its records stay)`);
      return 0;
    }
    if (action === 'retention') {
      const follow = await updateFollow(database, { id: target, change: { retention }, now: new Date() });
      console.log(shown`kura: ${target} keeps: ${describeRules(follow.retention)}`);
      return 0;
    }
    if (action === 'pause' || action === 'resume') {
      await updateFollow(database, { id: target, change: { paused: action === 'pause' }, now: new Date() });
      console.log(shown`kura: ${target} is ${action === 'pause' ? 'paused' : 'followed again'}`);
      return 0;
    }
    // the channel resolver (the sources and their HTTP client) is loaded only to add a follow
    const { createChannelResolver, followPolicy } = await import('../wiring/follow-signals.js');
    const follow = await addFollow(
      { follows: database.follows, resolver: createChannelResolver(config), policy: followPolicy(config) },
      {
        follow: {
          url: target,
          ...defined({
            channel: values.channel,
            title: values.title,
            titleInclude: values['title-include'],
            titleExclude: values['title-exclude'],
            quality: values.quality,
          }),
          ...(membersOnly === undefined ? {} : { membersOnly: membersOnly as MembersOnlyRule }),
          ...withoutNulls(retention),
        },
        createdBy: `cli/${userInfo().username}`,
        now: new Date(),
      },
    );
    console.log(escapeControls(follow.id));
    return 0;
  } finally {
    await database.close();
  }
}

async function list(database: Database, json: boolean): Promise<number> {
  const now = new Date();
  const follows = (await listFollows(database)).map((f) => ({
    id: f.id,
    kind: f.kind,
    health: healthOf(f, now),
    queued: f.queuedCount,
    channel: f.channelName,
    url: f.url,
  }));
  printListing(['id', 'kind', 'health', 'queued', 'channel', 'url'], follows, json);
  return 0;
}

function usage(problem: string): number {
  console.error(`kura: ${escapeControls(problem)}\n\nUsage:\n${USAGES.follow}`);
  return 2;
}

/** The retention flags given (`none`: no limit), or what is wrong with one. */
function retentionFlags(values: Record<string, unknown>): RetentionChange | string {
  const change: RetentionChange = {};
  for (const [flag, key, whole] of [
    ['keep-last', 'keepLast', true],
    ['max-age-days', 'maxAgeDays', true],
    ['max-gb', 'maxGb', false],
  ] as const) {
    const raw = values[flag];
    if (typeof raw !== 'string') continue;
    const value = raw === 'none' ? null : Number(raw);
    if (value !== null && !(whole ? /^\d+$/ : /^\d+(\.\d+)?$/).test(raw)) return `--${flag} is ${whole ? 'a whole number' : 'a number'} of 0 or more, or none`;
    change[key] = value;
  }
  return change;
}

function withoutNulls(change: RetentionChange): { keepLast?: number; maxAgeDays?: number; maxGb?: number } {
  return Object.fromEntries(Object.entries(change).filter(([, value]) => value !== null && value !== undefined));
}

function defined<T extends Record<string, string | undefined>>(values: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: string };
}
