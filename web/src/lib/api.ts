/**
 * The API's answers as the server's route schemas define them (types only: nothing of the
 * server is bundled), so the UI and the API cannot drift.
 */
import type { PresentedCaller } from '../../../src/http/user/user.schema.js';
import type { LivestreamDetails, LivestreamRecord } from '../../../src/http/livestreams/record.schema.js';
import type { Problem } from '../../../src/http/responses.schema.js';
import type { GrowthPoint, Stats } from '../../../src/http/stats/stats.schema.js';

export type { GrowthPoint, LivestreamDetails, LivestreamRecord, Stats };
export type Caller = PresentedCaller;

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

async function failure(response: Response): Promise<ApiError> {
  try {
    const problem = (await response.json()) as Partial<Problem>;
    return new ApiError(response.status, problem.code ?? 'error', problem.detail ?? response.statusText);
  } catch {
    return new ApiError(response.status, 'error', `${response.status} ${response.statusText}`);
  }
}

/** Calls the API on this origin (the session cookie goes along); rejects with an ApiError. */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', ...init });
  } catch {
    throw new ApiError(0, 'network', 'Kura could not be reached. Check the connection and retry.');
  }
  if (!response.ok) throw await failure(response);
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await request(path)).json() as Promise<T>;
}

/** Sends JSON with a method that changes something; answers the JSON body, or null for 204. */
export async function send<T>(method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<T | null> {
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

const early = new Map<string, Promise<Response>>();

/** Starts fetching a GET that the first page will ask for while the app's code still loads. */
export function fetchEarly(path: string): void {
  const pending = request(path);
  pending.catch(() => undefined);
  early.set(path, pending);
}

/** One page of `/api/history`, with the total from its pagination header. */
export async function getHistory(page: number, limit: number, sort: 'asc' | 'desc'): Promise<HistoryPage> {
  const path = `/api/history?page=${page}&limit=${limit}&sort=${sort}`;
  const started = early.get(path);
  early.delete(path);
  const response = await (started ?? request(path));
  const records = (await response.json()) as LivestreamRecord[];
  return {
    records,
    total: Number(response.headers.get('x-kura-pagination-total') ?? records.length),
    hasMore: response.headers.get('x-kura-pagination-has-more') === 'true',
  };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
