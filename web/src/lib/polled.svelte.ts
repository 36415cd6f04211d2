/** What a page shows from the API, kept fresh: see `polled`. */
export interface Polled<T> {
  /** The latest answer; null until the first one. */
  readonly value: T | null;
  /** Why the latest load failed, when nothing of it can be shown; null otherwise. */
  readonly error: unknown;
  /** Loads again now, showing its error if it fails (a Retry button, or after a change). */
  reload(): void;
  /** Loads again now, keeping what is shown if it fails (after an action, or on the timer). */
  refresh(): void;
}

/**
 * Loads `load()` while the calling component lives: at once, again whenever reactive state that
 * `load` reads before its first await changes (a page number: the error of that load is shown),
 * and every `everyMs` if given (things that move by themselves). A failed refresh keeps what is
 * shown; the answer of a load overtaken by a newer one is dropped. Call it while a component
 * initialises.
 */
export function polled<T>(load: () => Promise<T>, everyMs = 0): Polled<T> {
  let value = $state<T | null>(null);
  let error = $state<unknown>(null);
  let latest = 0;

  function start(showError: boolean) {
    const run = ++latest;
    if (showError) error = null;
    load().then(
      (answer) => {
        if (run !== latest) return;
        value = answer;
        error = null;
      },
      (e: unknown) => {
        if (run === latest && (showError || value === null)) error = e;
      },
    );
  }

  $effect(() => {
    start(true);
    if (everyMs <= 0) return;
    const timer = setInterval(() => start(false), everyMs);
    return () => clearInterval(timer);
  });

  return {
    get value() {
      return value;
    },
    get error() {
      return error;
    },
    reload: () => start(true),
    refresh: () => start(false),
  };
}
