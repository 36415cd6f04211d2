import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * End-to-end files (real-time streams, 30–180 s each) first, then integration, then unit; last,
 * the file that times a restart (crash-takeover: the captures held again within 5 s of a start),
 * which three other end-to-end files beside it on a slower machine stretched past what it
 * measures (decision 0119).
 */
const RANKS: ReadonlyArray<[RegExp, number]> = [
  [/\/test\/e2e\/crash-takeover\.test\.ts$/, 3],
  // the walk of every page in each language (a Chromium page, an axe pass and a screenshot for
  // some 200 page loads) first among the integration files, when most real-time captures are done:
  // beside them among the end-to-end files, it starved two of segments
  [/\/test\/e2e\/web-languages\.test\.ts$/, 0.5],
  [/\/test\/e2e\//, 0],
  [/\/test\/integration\//, 1],
];

/**
 * Runs the long end-to-end files first so the workers finish together: left to vitest's own
 * order (the largest files first in a fresh clone), a short file of two 35 s tests started last
 * and ran a minute after everything else had ended. Within a rank, vitest's order stands.
 */
export default class E2eFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => RANKS.find(([pattern]) => pattern.test(file.moduleId))?.[1] ?? 2;
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
