import { userInfo } from 'node:os';
import type { Config } from '../config/config.js';
import { queueStream } from '../core/record-actions/queue-stream.js';
import { createCommandLogger } from '../wiring/logger.js';
import { openDatabase } from '../wiring/database.js';
import { startScheduler } from '../wiring/jobs.js';
import { createSources } from '../wiring/sources.js';
import { parseCommandArgs } from './command-args.js';
import type { Command } from './command.js';
import { shown } from './terminal-text.js';

/** `kura archive URL`: queues a stream for archiving as the operator (`cli/<user>`), as a submission through the API would. */
export const archiveCommand: Command = {
  run: runArchive,
};

async function runArchive(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { title: { type: 'string' }, channel: { type: 'string' }, quality: { type: 'string' } });
  if (positionals.length !== 1) {
    console.error('kura: archive takes exactly one URL');
    return 2;
  }
  const log = createCommandLogger(config);
  const database = await openDatabase(config, log);
  const jobs = await startScheduler(database, log, { command: true });
  try {
    const record = await queueStream(
      { livestreams: database.livestreams, captures: database.captures, scheduler: jobs, source: createSources(config).source },
      {
        url: positionals[0] as string,
        submitter: `cli/${userInfo().username}`,
        title: values.title,
        channelName: values.channel,
        quality: values.quality,
        now: new Date(),
      },
    );
    console.log(shown`kura: ${record.id} is ${record.status}; submitters: ${record.submitters.join(', ')}`);
    return 0;
  } finally {
    await jobs.stop(1000);
    await database.close();
  }
}
