// Decisions: docs/decisions/0004-route-schemas-define-the-api.md
/**
 * The API's answers as the server's route schemas define them (types only: nothing of the
 * server is bundled), so the UI and the API cannot drift.
 */
import type { Channel } from '../../../src/http/channels/channels.schema.js';
import type { FollowDetailJson, FollowJson, SightingJson } from '../../../src/http/follows/follows.schema.js';
import type { PresentedCaller } from '../../../src/http/user/user.schema.js';
import type { CaptureProgressBody, LivestreamDetails, LivestreamRecord } from '../../../src/http/livestreams/record.schema.js';
import type { MomentJson } from '../../../src/http/moments/moments.schema.js';
import type { Problem } from '../../../src/http/responses.schema.js';
import type { QueuedRecord } from '../../../src/http/queue/queue.schema.js';
import type { ChatActivityJson, ChatMessageJson, ChatPageJson } from '../../../src/http/video/chat.schema.js';
import type { DiskStats, GrowthPoint, Stats } from '../../../src/http/stats/stats.schema.js';
import type { DeliveryJson, WebhookJson } from '../../../src/http/webhooks/webhooks.schema.js';
import type { RetentionPlanJson } from '../../../src/http/retention/retention.schema.js';
import { getLocale, m } from './i18n.js';

export type { Channel, DiskStats, GrowthPoint, LivestreamDetails, LivestreamRecord, QueuedRecord, Stats };
export type Caller = PresentedCaller;
export type CaptureProgress = CaptureProgressBody;
export type ChatPage = ChatPageJson;
export type ChatMessage = ChatMessageJson;
export type ChatActivity = ChatActivityJson;
export type Follow = FollowJson;
export type RetentionRules = FollowJson['retention'];
export type RetentionPlan = RetentionPlanJson;
export type FollowDetail = FollowDetailJson;
export type Moment = MomentJson;
export type Sighting = SightingJson;
export type Webhook = WebhookJson;
/** The answer to adding a webhook: the only one that holds its secret. */
export type CreatedWebhook = WebhookJson & { secret: string };
export type WebhookDelivery = DeliveryJson;
export type WebhookEvent = DeliveryJson['eventType'];

/** An answer other than 2xx, with the problem's code and detail when the API gave one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The UI's words for the API's problems (problem-messages.ts), loaded with the first problem: no page's first load carries them. */
let problemWords: Promise<typeof import('./problem-messages.js') | null> | null = null;
let problemText: ((code: string, detail: string, locale: string) => string) | null = null;

/** `error`, once the UI's words for problems are loaded (or could not be: then errorText says the API's words). */
export async function withProblemWords(error: ApiError): Promise<ApiError> {
  // an English page says the API's own words (problemText): it needs no table
  if (getLocale() === 'en') return error;
  problemWords ??= import('./problem-messages.js').catch(() => null);
  problemText ??= (await problemWords)?.problemText ?? null;
  return error;
}

async function failure(response: Response): Promise<ApiError> {
  try {
    const problem = (await response.json()) as Partial<Problem>;
    return await withProblemWords(new ApiError(response.status, problem.code ?? 'error', problem.detail ?? response.statusText));
  } catch {
    return await withProblemWords(new ApiError(response.status, 'error', `${response.status} ${response.statusText}`));
  }
}

/** Calls the API on this origin (the session cookie goes along); rejects with an ApiError. */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    // the words for problems may not load either, and this one is already the page's language's
    throw await withProblemWords(new ApiError(0, 'network', m.problem_network()));
  }
  if (!response.ok) throw await failure(response);
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path)).json() as Promise<T>;
}

/** Sends JSON with a method that changes something; answers the JSON body, or null for 204. */
export async function send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T | null> {
  const init: RequestInit = { method };
  if (body !== undefined) Object.assign(init, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const response = await request(path, init);
  return response.status === 204 ? null : ((await response.json()) as T);
}

export interface HistoryPage {
  records: LivestreamRecord[];
  total: number;
  hasMore: boolean;
}

export interface ChannelsPage {
  channels: Channel[];
  total: number;
  hasMore: boolean;
}

const early = new Map<string, Promise<Response>>();

/** Starts fetching a GET that the first page will ask for while the app's code still loads. */
export function fetchEarly(path: string): void {
  const pending = request(path);
  pending.catch(() => undefined);
  early.set(path, pending);
}

/** A paginated GET: its items, with the total and has-more from the pagination headers. */
async function getPaged<T>(path: string): Promise<{ items: T[]; total: number; hasMore: boolean }> {
  const started = early.get(path);
  early.delete(path);
  const response = await (started ?? request(path));
  const items = (await response.json()) as T[];
  return {
    items,
    total: Number(response.headers.get('x-kura-pagination-total') ?? items.length),
    hasMore: response.headers.get('x-kura-pagination-has-more') === 'true',
  };
}

/** One page of `/api/history` (of one channel when `channelId` is given). */
export async function getHistory(page: number, limit: number, sort: 'asc' | 'desc', channelId: string | null = null): Promise<HistoryPage> {
  const channel = channelId === null ? '' : `&channelId=${encodeURIComponent(channelId)}`;
  const { items, total, hasMore } = await getPaged<LivestreamRecord>(`/api/history?page=${page}&limit=${limit}&sort=${sort}${channel}`);
  return { records: items, total, hasMore };
}

/** One page of `/api/channels`, latest archive first. */
export async function getChannels(page: number, limit: number): Promise<ChannelsPage> {
  const { items, total, hasMore } = await getPaged<Channel>(`/api/channels?page=${page}&limit=${limit}`);
  return { channels: items, total, hasMore };
}

/** Where a follow's page is. */
export function followPath(followId: string): string {
  return `/follows/${encodeURIComponent(followId)}`;
}

/** Where a webhook's API resource is (`/api/webhooks/{id}` and what is below it). */
export function webhookApiPath(webhookId: string, below = ''): string {
  return `/api/webhooks/${encodeURIComponent(webhookId)}${below}`;
}

/** Where a channel's page is. */
export function channelPath(channelId: string): string {
  return `/channel/${encodeURIComponent(channelId)}`;
}

/** What a failure says to the person, in the page's language (problem-messages.ts for the API's problems). */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return problemText === null ? error.message : problemText(error.code, error.message, getLocale());
  return error instanceof Error ? error.message : String(error);
}
