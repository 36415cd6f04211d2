import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCaptureHarness } from '../support/capture-harness.js';
import { probe } from '../support/hls-fixture.js';
import { writeDiscontinuityStream } from '../support/hls-streams.js';

// On fs storage ffmpeg writes the archive's file itself, beside its key. A worker killed with
// SIGKILL once that file is written whole, but before it is hashed and renamed (the last moment
// a crash can cut), must leave no archive anyone can see; the next worker writes the same bytes.
const h = useCaptureHarness();

/** An ffmpeg that, for the archive's remux (`+faststart`), writes its output and then hangs, its pid in `$KURA_TEST_REMUXED`. */
const STOPS_AFTER_REMUX = `#!/bin/sh
case "$*" in
  *+faststart*) ffmpeg "$@" || exit $?; echo $$ > "$KURA_TEST_REMUXED.partial"; mv "$KURA_TEST_REMUXED.partial" "$KURA_TEST_REMUXED"; exec sleep 600 ;;
  *) exec ffmpeg "$@" ;;
esac
`;

/** Resolves with the content of `file` once it exists (written whole: it appears by a rename). */
async function appeared(file: string): Promise<string> {
  const seen = new Promise<void>((resolve) => {
    const watcher = watch(path.dirname(file), () => {
      void stat(file).then(
        () => {
          watcher.close();
          resolve();
        },
        () => undefined,
      );
    });
  });
  if ((await stat(file).catch(() => null)) === null) await seen;
  return readFile(file, 'utf8');
}

describe('a finalize killed on fs storage', () => {
  it('leaves no archive in sight, and the next worker stores the very bytes the killed one had written', async () => {
    const bin = await mkdtemp(path.join(os.tmpdir(), 'kura-ffmpeg-'));
    const ffmpeg = path.join(bin, 'ffmpeg');
    await writeFile(ffmpeg, STOPS_AFTER_REMUX);
    await chmod(ffmpeg, 0o755);
    const remuxed = path.join(bin, 'remuxed');

    const fixture = await h.startFixture({ seconds: 1 });
    await writeDiscontinuityStream(path.join(fixture.dir, 'live'));
    await h.serve({ FFMPEG_PATH: ffmpeg, KURA_TEST_REMUXED: remuxed });
    const id = await h.archive(fixture.url);
    const stuck = Number(await appeared(remuxed));
    h.kura!.child.kill('SIGKILL');
    await h.kura!.exited;
    process.kill(-stuck, 'SIGKILL'); // the killed worker's ffmpeg, which would have gone on to its end

    const folder = path.dirname(h.archivedFile(id));
    const left = await readdir(folder);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^${id}\\.mp4\\.[0-9a-f]+\\.partial$`));
    const written = await readFile(path.join(folder, left[0] as string));
    expect(written.length).toBeGreaterThan(100_000);
    expect((await h.db.pool.query('select status from livestreams where id = $1', [id])).rows[0].status).toBe('live');

    const api = await h.serve(); // a redeploy; the killed worker's lease goes stale and the watchdog asks again
    const done = await h.settled(id);
    expect(done.status, done.failure_reason ?? '').toBe('finished');
    const archived = await readFile(h.archivedFile(id));
    expect(archived.equals(written)).toBe(true);
    const details = await fetch(`${api}/api/video/${id}`).then((r) => r.json());
    expect(details).toMatchObject({ fileSizeBytes: archived.length, sha256: createHash('sha256').update(archived).digest('hex') });
    expect((await readdir(folder)).sort()).toEqual([`${id}.jpg`, `${id}.log`, `${id}.mp4`]);
    expect((await probe(h.archivedFile(id))).frames).toBe(300);
  }, 60_000);
});
