/** Committed changes to records, from any process; read caches depend on it. */
export interface ChangeFeed {
  /** False while changes could be missed: caches must be bypassed then. */
  readonly connected: boolean;
  /** `payload`: what the change said (its notification's payload); absent when the feed connected again or was lost, when anything may have changed. */
  onChange(listener: (payload?: string) => void): void;
}
