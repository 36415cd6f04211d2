import type { Follow } from '../../src/core/follows/follow.js';

/** A follow as the repository would hand it to a signal: never checked, due now, no rules. */
export function followOf(fields: Partial<Follow> & Pick<Follow, 'kind' | 'url' | 'channelId' | 'channelName'>): Follow {
  const now = new Date();
  return {
    id: 'kVx3abcdEFGH',
    title: null,
    rules: { titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null },
    paused: false,
    createdBy: 'local/admin',
    createdAt: now,
    queuedCount: 0,
    lastCheckedAt: null,
    nextCheckAt: now,
    failingSince: null,
    signals: [],
    accessRefused: null,
    retention: { keepLast: null, maxAgeDays: null, maxGb: null },
    ...fields,
  };
}
