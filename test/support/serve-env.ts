/**
 * The environment end-to-end tests run `kura` with: their own database and data directory, any
 * free port, sources on 127.0.0.1 allowed (the fixtures live there), and polls, idle and stale
 * timeouts short enough for streams of seconds. `extra` adds to it or overrides it.
 */
export function e2eEnv(databaseUrl: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    KURA_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'info',
    KURA_WATCH_POLL_SECONDS: '0.5',
    KURA_CAPTURE_IDLE_SECONDS: '8',
    KURA_CAPTURE_STALE_SECONDS: '4',
    KURA_MIN_FREE_DISK_MB: '10',
    KURA_ALLOW_PRIVATE_SOURCES: 'true',
    ...extra,
  };
}
