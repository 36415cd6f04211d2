import type { Caller, Moment } from './api.js';

/** The chapter the player is in: the last moment at or before `time` (moments come by time); null before the first. */
export function currentMoment(moments: readonly Moment[], time: number): Moment | null {
  let current: Moment | null = null;
  // a seek to a moment's time may read back a hair before it
  for (const moment of moments) if (moment.at <= time + 0.01) current = moment;
  return current;
}

/** Whether `user` may change or remove `moment`: its author (named as a submitter, `provider/id`) or an admin. */
export function mayChange(moment: Moment, user: Caller | null | undefined): boolean {
  if (!user) return false;
  return user.role === 'admin' || moment.author === `${user.provider}/${user.id}`;
}
