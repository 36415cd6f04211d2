import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { runKura } from '../support/cli.js';
import { buildRecords } from '../support/factories.js';
import { SEGMENT_REQUEST } from '../support/hls-fixture.js';

const STALL_ON_SIGNAL = fileURLToPath(new URL('../support/bin/stall-on-signal.mjs', import.meta.url));
const STALL_MS = 6000;

// Recordings do not pay for anyone's requests (issue 49, decision 0096): one `kura serve`
// (KURA_ROLE=all) records a live stream whose playlist keeps 3 s while strangers send it the
// outside probe's searches from 20 addresses (every query sorting the whole index, a new highlight
// tag each time so no cache answers), read its largest pages, and an operator imports 30,000
// records and follows channels with the largest title rules. Those are bounded now, so twice a
// request that holds the api's event loop for 6 s (as the probe's sorted search over a million
// records did for 9.8 s) is played by a module preloaded into `kura serve`
// (test/support/bin/stall-on-signal.mjs). A recording on that loop would lose segments for good.
const h = useCaptureHarness();
const RECORDS = 30_000;
const CLIENTS = 20;
/** The largest title rule a follow takes (follow-rules.ts). */
const LONGEST_RULE = `(${'ab|'.repeat(165)}z)+$`.slice(0, 500);

/** One stranger: multi-searches that sort everything, until `until` says stop; resolves with how many were answered. */
async function hostileSearches(api: string, address: string, until: () => boolean): Promise<number> {
  const access = (await fetch(`${api}/api/search`).then((r) => r.json())) as { apiKey: string; index: string };
  let answered = 0;
  while (!until()) {
    const tag = `<m${Math.random().toString(36).slice(2)}>`;
    const queries = Array.from({ length: 20 }, (_, i) => ({
      indexUid: access.index,
      q: i % 2 === 0 ? '' : 'fixture',
      sort: ['length:desc'],
      highlightPreTag: tag,
      attributesToHighlight: ['*'],
      limit: 50,
    }));
    const response = await fetch(`${api}/api/search-engine/multi-search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access.apiKey}`, 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ queries }),
    });
    await response.arrayBuffer();
    if (response.status === 200) answered += 1;
    // a page of the history as large as it comes, from the same stranger
    await fetch(`${api}/api/history?limit=100&page=${1 + (answered % 50)}`, { headers: { 'x-forwarded-for': address } }).then((r) => r.arrayBuffer());
  }
  return answered;
}

describe('a recording in a kura serve that strangers and an import keep busy', () => {
  it('loses no segment of a stream with a 3 s window', async () => {
    const importFile = path.join(h.dataDir, '..', 'import.json');
    await writeFile(importFile, JSON.stringify(buildRecords(RECORDS, { unfinishedEvery: 10 })));
    const env = { KURA_TRUST_PROXY: 'loopback', KURA_FOLLOW_POLL_SECONDS: '1', STALL_ON_SIGNAL_MS: String(STALL_MS) };
    for (let i = 0; i < 5; i++) {
      const added = await runKura(
        ['follow', 'add', `http://127.0.0.1:9/follow-${i}/index.m3u8`, '--title-include', LONGEST_RULE],
        h.env(env),
        path.dirname(h.dataDir),
      );
      expect(added.code, added.stderr).toBe(0);
    }
    const live = await h.startFixture({ seconds: 24, listSize: 3 });
    const api = await h.serve(env, ['--import', STALL_ON_SIGNAL]);
    const id = await h.archive(live.url);
    const encoded = live.start();
    await live.seen(SEGMENT_REQUEST, 2);

    let over = false;
    const strangers = Array.from({ length: CLIENTS }, (_, i) => hostileSearches(api, `198.51.100.${i + 1}`, () => over));
    const imported = runKura(['import', importFile], h.env(env), path.dirname(h.dataDir));
    // the api's loop held twice for 6 s: /healthz, asked just after each began, waits most of it
    for (const segments of [4, 12]) {
      await live.seen(SEGMENT_REQUEST, segments);
      h.kura!.child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 200)); // the signal reaches the loop
      const asked = Date.now();
      await fetch(`${api}/healthz`);
      expect(Date.now() - asked).toBeGreaterThanOrEqual(STALL_MS - 1000);
    }
    await encoded;
    over = true;
    const answered = await Promise.all(strangers);
    expect((await imported).code).toBe(0);

    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details.capture.gaps).toEqual([]);
    // the strangers were answered all along: the api was busy, not refusing
    expect(answered.every((n) => n > 0)).toBe(true);
  }, 240_000);
});
