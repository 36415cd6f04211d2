// Decisions: docs/decisions/0001-errors-are-problem-json.md
/** How a failure should be answered; the HTTP layer maps each kind to one status. */
export type ErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'gone' | 'conflict' | 'range_not_satisfiable' | 'rate_limited' | 'unavailable';

/** The closed set of stable error codes clients can rely on. */
export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_body'
  | 'invalid_import'
  | 'invalid_source'
  | 'already_archived'
  | 'capture_not_running'
  | 'capture_not_started'
  | 'live_segment_not_found'
  | 'live_ended'
  | 'live_not_playable'
  | 'live_frame_not_found'
  | 'archive_not_ready'
  | 'archive_missing'
  | 'archive_unreadable'
  | 'moment_not_found'
  | 'not_moment_author'
  | 'moment_limit_reached'
  | 'livestream_not_found'
  | 'channel_not_found'
  | 'follow_not_found'
  | 'invalid_follow'
  | 'invalid_retention'
  | 'already_followed'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'database_unavailable'
  | 'search_unavailable'
  | 'search_warming'
  | 'too_many_search_requests'
  | 'invalid_search_q'
  | 'storage_full'
  | 'not_logged_in'
  | 'feed_token_invalid'
  | 'invalid_credentials'
  | 'login_failed'
  | 'admin_only'
  | 'cross_origin_refused'
  | 'eventsub_signature_invalid'
  | 'too_many_requests'
  | 'provider_not_found'
  | 'user_not_found'
  | 'token_not_found'
  | 'livestream_not_cancellable'
  | 'livestream_not_retryable'
  | 'invalid_setup_token'
  | 'setup_done'
  | 'download_type_not_found'
  | 'chat_not_found'
  | 'log_not_imported'
  | 'range_not_satisfiable'
  | 'livestream_state_conflict'
  | 'invalid_webhook'
  | 'webhook_not_found'
  | 'webhook_limit_reached'
  | 'token_limit_reached';

/** The only error core throws: a code for machines, a detail for people. */
export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: ErrorCode,
    readonly detail: string,
    /** For `rate_limited` and `unavailable`: when the caller may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'AppError';
  }
}

/**
 * A job's failure that retrying cannot mend (unplayable media, a source that says the video is
 * gone): the job stops at once and its record becomes `failed` with `reason`, which a person reads.
 */
export class PermanentError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'PermanentError';
  }
}
