import { requireAdmin, type Caller } from '../accounts/account.js';
import { getLivestream } from '../livestream/get-livestream.js';
import type { Livestream } from '../livestream/livestream.js';
import type { DetailsChange, LivestreamRepo } from '../livestream/ports.js';

/**
 * An admin renames a record: its title, its channel's name, or both (what an HLS source never
 * says, or a YouTube title worth correcting; while a YouTube record waits, a title the source
 * changes later replaces it again). The search index follows the record. Throws `admin_only`,
 * `livestream_not_found`.
 */
export async function renameLivestream(
  deps: { livestreams: LivestreamRepo },
  request: { caller: Caller; id: string; title?: string; channelName?: string },
): Promise<Livestream> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  const change: DetailsChange = {
    ...(request.title === undefined ? {} : { title: request.title.trim() }),
    ...(request.channelName === undefined ? {} : { channelName: request.channelName.trim() }),
  };
  await deps.livestreams.update(record.id, change);
  return (await deps.livestreams.findById(record.id)) as Livestream;
}
