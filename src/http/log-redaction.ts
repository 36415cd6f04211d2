// Decisions: docs/decisions/0080-private-instances.md
/** Where a log line goes: stdout, pino's destination or pino-pretty, or a test's collector. */
export interface LineSink {
  write(line: string): unknown;
}

/**
 * Kura's secrets as they may show in a line: a feed token or an API token (their prefix and 256
 * random bits), whatever a URL's `feed_token` parameter held (a wrong token is someone's
 * mistyped right one), and a private instance's search key (`kura_search_`, a payload and its
 * signature: caller-search-key.ts).
 */
const SECRETS = [
  /\bkura_(feed_)?[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
  /(feed_token(?:=|%3D|"\s*:\s*"))[^&\s"\\#]*/gi,
  /\bkura_search_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g,
];

/** A line with every secret replaced by `[redacted]`. */
export function redactSecrets(line: string): string {
  const [token, parameter, searchKey] = SECRETS as [RegExp, RegExp, RegExp];
  return line
    .replace(searchKey, 'kura_search_[redacted]')
    .replace(token, (_match, feed: string | undefined) => `kura_${feed ?? ''}[redacted]`)
    .replace(parameter, '$1[redacted]');
}

/**
 * A sink that writes every line redacted: whatever a line holds (a request URL in an error, a
 * query echoed in a message), a token in a URL never reaches the log.
 */
export function redactingSink<T extends LineSink>(sink: T): LineSink {
  return { write: (line: string) => sink.write(redactSecrets(line)) };
}
