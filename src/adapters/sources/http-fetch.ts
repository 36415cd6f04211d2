/** Per-request limits for everything Kura fetches from a source. */
export const FETCH_TIMEOUT_MS = 10_000;
const MAX_PLAYLIST_BYTES = 4 * 1024 * 1024;

export class FetchError extends Error {
  constructor(
    message: string,
    /** HTTP status, or 0 for a network fault or time-out. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
  /** 404/410: the resource is gone (or not there yet); retrying the same URL will not help soon. */
  get gone(): boolean {
    return this.status === 404 || this.status === 410;
  }
}

/** GETs `url` with a time-out; throws FetchError on a network fault or a non-2xx answer. */
export async function fetchBytes(url: string, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    throw new FetchError(`${url}: ${(error as Error).message}`, 0);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new FetchError(`${url}: HTTP ${response.status}`, response.status);
  }
  try {
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > maxBytes) throw new FetchError(`${url}: larger than ${maxBytes} bytes`, 413);
    return body;
  } catch (error) {
    if (error instanceof FetchError) throw error;
    throw new FetchError(`${url}: ${(error as Error).message}`, 0);
  }
}

export async function fetchText(url: string): Promise<string> {
  return (await fetchBytes(url, MAX_PLAYLIST_BYTES)).toString('utf8');
}
