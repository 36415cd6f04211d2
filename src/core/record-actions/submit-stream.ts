// Decisions: docs/decisions/0019-submission.md
import { submitterOf, type Caller } from '../accounts/account.js';
import type { RateLimit, RateLimiter } from '../rate-limit.js';
import { queueStream } from './queue-stream.js';
import { givenName } from '../records/record-names.js';
import { AppError } from '../errors.js';
import type { Livestream } from '../records/livestream.js';
import type { CaptureStates, EncoderLog, PartLog } from '../capture/ports.js';
import type { LivestreamRepo } from '../records/ports.js';
import type { Scheduler } from '../scheduler.js';
import type { StreamSource } from '../sources/ports.js';

/**
 * A user's submission: counted against the per-user rate limit, then queued by `queueStream`
 * with the caller as a submitter (joining an upcoming or live record, never twice). `source` is
 * the submission source, which applies the operator's rules (kinds, channels, private targets).
 * The title and channel name given are kept as `givenName` makes them.
 * Throws `too_many_requests` and whatever `queueStream` throws.
 */
export async function submitStream(
  deps: { livestreams: LivestreamRepo; captures: CaptureStates & PartLog & EncoderLog; scheduler: Scheduler; source: StreamSource; rateLimiter: RateLimiter },
  request: { caller: Caller; url: string; quality?: string; title?: string; channelName?: string; rule: RateLimit; now: Date },
): Promise<Livestream> {
  const submitter = submitterOf(request.caller.user);
  const limit = await deps.rateLimiter.hit('submit', submitter, request.rule);
  if (!limit.allowed) {
    throw new AppError(
      'rate_limited',
      'too_many_requests',
      `At most ${request.rule.limit} submissions per ${request.rule.windowSeconds / 60} min; try again in ${limit.retryAfterSeconds} s.`,
      limit.retryAfterSeconds,
    );
  }
  const { url, quality, now } = request;
  const names = {
    ...(request.title === undefined ? {} : { title: givenName(request.title) }),
    ...(request.channelName === undefined ? {} : { channelName: givenName(request.channelName) }),
  };
  return queueStream(deps, { url, submitter, quality, now, ...names });
}
