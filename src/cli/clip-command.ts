import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config/config.js';
import { clipRecording } from '../core/playback/clip-recording.js';
import { clockOf } from '../core/time-text.js';
import { commandClipDeps } from '../wiring/clips.js';
import { createStore } from '../wiring/storage.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';
import { withDatabase } from './with-database.js';

/** `kura clip ID START END [-o FILE]`: cuts part of an archive as the API does, into FILE (`-`: stdout) or a file named like the download. */
export const clipCommand: Command = {
  run: runClip,
};

async function runClip(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { output: { type: 'string', short: 'o' } });
  const [id, start, end] = positionals;
  if (id === undefined || start === undefined || end === undefined || positionals.length > 3) {
    console.error('kura: usage: kura clip ID START END [-o FILE]');
    return 2;
  }
  return withDatabase(config, async (database) => {
    const deps = commandClipDeps(config, database, await createStore(config, database));
    const clip = await clipRecording(deps, { id, start, end });
    const file = values.output ?? clip.fileName;
    await pipeline(clip.body, file === '-' ? process.stdout : createWriteStream(file, { flags: 'wx' }));
    const where = file === '-' ? 'stdout' : file;
    console.error(
      shown`kura: wrote ${where}: ${clockOf(clip.startSeconds)} to ${clockOf(clip.endSeconds)} (${clip.durationSeconds.toFixed(1)} s, from the keyframe at ${clip.startSeconds.toFixed(3)} s)`,
    );
    return 0;
  });
}
