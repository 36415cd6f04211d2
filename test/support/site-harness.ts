import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useCaptureHarness, type CaptureHarness } from './capture-harness.js';
import { runKura } from './cli.js';
import { ytDlpStandIn } from './yt-dlp-state.js';

/**
 * A live site's stream recorded end to end, one per test: the capture harness (a database, a
 * directory, a live HLS fixture as the site's playlist, `kura serve`) with the yt-dlp STAND-IN
 * answering as the sites' extractors do (test/support/yt-dlp-sites.mjs).
 */
export interface SiteHarness extends Pick<CaptureHarness, 'db' | 'startFixture' | 'settled' | 'archivedFile'> {
  /** The test's directory: the yt-dlp stand-in's state, and `data/`. */
  readonly cwd: string;
  /** The `kura` environment: the capture harness's, the yt-dlp stand-in, and `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** What the sites answer from now on (the stand-in notes each of its runs). */
  sitesSay(sites: object): Promise<void>;
  /** The arguments of every yt-dlp run so far. */
  ytDlpRuns(): Promise<string[][]>;
  /** Starts `kura serve`; resolves with its URL once it listens. */
  serve(extra?: Record<string, string>): Promise<string>;
  archive(url: string): ReturnType<typeof runKura>;
}

export function useSiteHarness(): SiteHarness {
  const h = useCaptureHarness();
  const cwd = () => path.dirname(h.dataDir);
  const standIn = () => ytDlpStandIn(cwd());
  const calls = () => path.join(cwd(), 'yt-dlp-calls.log');
  const env = (extra: Record<string, string> = {}) => h.env({ ...standIn().env, ...extra });
  return {
    get db() {
      return h.db;
    },
    get cwd() {
      return cwd();
    },
    env,
    sitesSay: (sites) => standIn().says({ sites, calls: calls() }),
    async ytDlpRuns() {
      const lines = (await readFile(calls(), 'utf8')).trim().split('\n');
      return lines.map((line) => JSON.parse(line) as string[]);
    },
    startFixture: (options) => h.startFixture(options),
    // its "listening" line is at info, whatever the environment passed says
    serve: (extra = {}) => h.serve({ ...standIn().env, ...extra, LOG_LEVEL: 'info' }),
    archive: (url) => runKura(['archive', url], env(), cwd()),
    settled: (id) => h.settled(id),
    archivedFile: (id) => h.archivedFile(id),
  };
}
