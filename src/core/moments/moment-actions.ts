// Decisions: docs/decisions/0130-moments.md
import { submitterOf, type Caller } from '../accounts/account.js';
import { AppError } from '../errors.js';
import { mintId } from '../ids.js';
import { countAttempt, type RateLimiter } from '../rate-limit.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import type { LivestreamRepo } from '../records/ports.js';
import { MOMENT_RATE, MOMENTS_PER_RECORD, momentAt, momentText, type Moment } from './moment.js';
import type { MomentRepo } from './ports.js';

export interface MomentDeps {
  livestreams: LivestreamRepo;
  moments: MomentRepo;
  rateLimiter: RateLimiter;
}

/**
 * Adds a moment to a record being recorded or archived, as `caller`. Throws
 * `livestream_not_found`, `livestream_state_conflict` (upcoming or failed: nothing to mark yet),
 * `invalid_parameter` (`at`, `text`), `too_many_requests` and `moment_limit_reached`.
 */
export async function addMoment(deps: MomentDeps, caller: Caller, request: { livestreamId: string; at: number; text: string }): Promise<Moment> {
  const record = await getLivestream(deps, request.livestreamId);
  const atSeconds = momentAt(request.at, recordedSeconds(record));
  const text = momentText(request.text);
  const author = submitterOf(caller.user);
  await countAttempt(deps, 'moment', author, MOMENT_RATE, 'moments added or changed');
  const added = await deps.moments.add({ id: mintId(), livestreamId: record.id, atSeconds, text, author }, MOMENTS_PER_RECORD);
  if (added === null) throw new AppError('conflict', 'moment_limit_reached', `${record.id} holds ${MOMENTS_PER_RECORD} moments, the most one record may.`);
  return added;
}

/** Changes a moment's time or text, as its author or an admin. Throws `moment_not_found`, `forbidden` (`not_moment_author`), `invalid_parameter`, `too_many_requests`. */
export async function editMoment(deps: MomentDeps, caller: Caller, request: { id: string; at?: number; text?: string }): Promise<Moment> {
  const moment = await ownMoment(deps, caller, request.id);
  const record = await getLivestream(deps, moment.livestreamId);
  const atSeconds = request.at === undefined ? moment.atSeconds : momentAt(request.at, recordedSeconds(record));
  const text = request.text === undefined ? moment.text : momentText(request.text);
  await countAttempt(deps, 'moment', submitterOf(caller.user), MOMENT_RATE, 'moments added or changed');
  const updated = await deps.moments.update(moment.id, { atSeconds, text });
  if (updated === null) throw notFound(request.id);
  return updated;
}

/** Removes a moment, as its author or an admin. Throws `moment_not_found` and `forbidden` (`not_moment_author`). */
export async function removeMoment(deps: MomentDeps, caller: Caller, id: string): Promise<void> {
  await ownMoment(deps, caller, id);
  if (!(await deps.moments.remove(id))) throw notFound(id);
}

/** A record's moments, by time, for anyone who may read the record. Throws `livestream_not_found`. */
export async function listMoments(deps: Pick<MomentDeps, 'livestreams' | 'moments'>, livestreamId: string): Promise<Moment[]> {
  const record = await getLivestream(deps, livestreamId);
  return deps.moments.of(record.id);
}

/** The moment, when `caller` may change it: its author, or an admin. */
async function ownMoment(deps: MomentDeps, caller: Caller, id: string): Promise<Moment> {
  const moment = await deps.moments.find(id);
  if (moment === null) throw notFound(id);
  if (caller.role !== 'admin' && moment.author !== submitterOf(caller.user)) {
    throw new AppError('forbidden', 'not_moment_author', 'Only who added a moment, or an admin, may change or remove it.');
  }
  return moment;
}

/** How much of the record is there to mark: its archive's length, or the time since it went live; null when not known. */
function recordedSeconds(record: Livestream): number | null {
  if (record.status === 'finished') return record.archive?.lengthSeconds ?? null;
  if (record.status === 'live') return record.startedAt === null ? null : Math.max(0, (Date.now() - record.startedAt.getTime()) / 1000);
  throw new AppError('conflict', 'livestream_state_conflict', `${record.id} is ${record.status}: moments mark a stream being recorded or archived.`);
}

function notFound(id: string): AppError {
  return new AppError('not_found', 'moment_not_found', `No moment has the id "${id}".`);
}
