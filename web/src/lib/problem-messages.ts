/**
 * The web app's own words for each problem `code` the API documents (and `network`, the app's
 * own when Kura cannot be reached): the API keeps its English title and detail for its clients,
 * the page says it in its language. test/integration/problem-messages.test.ts holds this table to
 * the codes /api/openapi.json lists, both ways. A message with `{detail}` keeps the API's own
 * words in it: they name the field, the value or the rule at fault.
 */
import { m } from './i18n.js';

type Message = (inputs: { detail: string }) => string;

export const PROBLEM_MESSAGES: Readonly<Record<string, Message>> = {
  network: m.problem_network,
  internal_error: m.problem_internal_error,
  database_unavailable: m.problem_database_unavailable,
  storage_full: m.problem_storage_full,
  search_unavailable: m.problem_search_unavailable,
  search_warming: m.problem_search_warming,
  too_many_search_requests: m.problem_too_many_search_requests,
  invalid_search_q: m.problem_invalid_search_q,
  too_many_requests: m.problem_too_many_requests,
  not_logged_in: m.problem_not_logged_in,
  admin_only: m.problem_admin_only,
  cross_origin_refused: m.problem_cross_origin_refused,
  feed_token_invalid: m.problem_feed_token_invalid,
  invalid_credentials: m.problem_invalid_credentials,
  login_failed: m.problem_login_failed,
  provider_not_found: m.problem_provider_not_found,
  invalid_setup_token: m.problem_invalid_setup_token,
  setup_done: m.problem_setup_done,
  user_not_found: m.problem_user_not_found,
  token_not_found: m.problem_token_not_found,
  token_limit_reached: m.problem_token_limit_reached,
  invalid_parameter: m.problem_invalid_parameter,
  invalid_body: m.problem_invalid_body,
  bad_request: m.problem_bad_request,
  malformed_json: m.problem_malformed_json,
  malformed_url: m.problem_malformed_url,
  malformed_request: m.problem_malformed_request,
  invalid_header: m.problem_invalid_header,
  invalid_content_length: m.problem_invalid_content_length,
  request_timeout: m.problem_request_timeout,
  path_parameter_too_long: m.problem_path_parameter_too_long,
  url_too_long: m.problem_url_too_long,
  headers_too_large: m.problem_headers_too_large,
  payload_too_large: m.problem_payload_too_large,
  unsupported_media_type: m.problem_unsupported_media_type,
  route_not_found: m.problem_route_not_found,
  method_not_allowed: m.problem_method_not_allowed,
  range_not_satisfiable: m.problem_range_not_satisfiable,
  invalid_source: m.problem_invalid_source,
  already_archived: m.problem_already_archived,
  livestream_not_found: m.problem_livestream_not_found,
  livestream_state_conflict: m.problem_livestream_state_conflict,
  livestream_not_cancellable: m.problem_livestream_not_cancellable,
  livestream_not_retryable: m.problem_livestream_not_retryable,
  archive_not_ready: m.problem_archive_not_ready,
  archive_missing: m.problem_archive_missing,
  archive_unreadable: m.problem_archive_unreadable,
  download_type_not_found: m.problem_download_type_not_found,
  log_not_imported: m.problem_log_not_imported,
  capture_not_started: m.problem_capture_not_started,
  capture_not_running: m.problem_capture_not_running,
  live_ended: m.problem_live_ended,
  live_not_playable: m.problem_live_not_playable,
  live_segment_not_found: m.problem_live_segment_not_found,
  live_frame_not_found: m.problem_live_frame_not_found,
  chat_not_found: m.problem_chat_not_found,
  channel_not_found: m.problem_channel_not_found,
  moment_not_found: m.problem_moment_not_found,
  moment_limit_reached: m.problem_moment_limit_reached,
  not_moment_author: m.problem_not_moment_author,
  follow_not_found: m.problem_follow_not_found,
  already_followed: m.problem_already_followed,
  invalid_follow: m.problem_invalid_follow,
  invalid_retention: m.problem_invalid_retention,
  webhook_not_found: m.problem_webhook_not_found,
  webhook_limit_reached: m.problem_webhook_limit_reached,
  invalid_webhook: m.problem_invalid_webhook,
};

/**
 * Codes the app meets outside the API's problem documents, which the test leaves out of its
 * comparison: its own (`network`), and those of the search engine, which answers in Meilisearch's
 * error shape (lib/search.ts).
 */
export const CLIENT_CODES: readonly string[] = ['network', 'search_warming', 'too_many_search_requests', 'invalid_search_q'];

/**
 * What a problem says in the page's language: the API's own detail in English (its words are
 * written for people, and name what is at fault), the table's message in any other language,
 * the API's detail for a code the table does not know.
 */
export function problemText(code: string, detail: string, locale: string): string {
  const message = PROBLEM_MESSAGES[code];
  return message === undefined || locale === 'en' ? detail : message({ detail });
}
