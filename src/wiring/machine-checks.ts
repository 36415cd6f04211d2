import { cookiesCheck, dataDirCheck, toolChecks, type SystemCheck } from '../adapters/system/system-checks.js';
import type { Config } from '../config/config.js';
import { ytdlpOf } from './sources.js';

export { publicUrlCheck, type SystemCheck } from '../adapters/system/system-checks.js';

/** What `kura doctor` checks of this machine before the database and the store: the tools (ffmpeg, ffprobe, yt-dlp), the cookies file, the data directory. */
export async function machineChecks(config: Config): Promise<SystemCheck[]> {
  return [...(await toolChecks(config, ytdlpOf(config))), await cookiesCheck(config), await dataDirCheck(config)];
}
