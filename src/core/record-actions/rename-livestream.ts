import { requireAdmin, type Caller } from '../accounts/account.js';
import { getLivestream } from '../records/get-livestream.js';
import type { Livestream } from '../records/livestream.js';
import type { DetailsChange, LivestreamRepo } from '../records/ports.js';
import { givenName } from '../records/record-names.js';

/**
 * An admin renames a record: its title, its channel's name, or both (what an HLS source never
 * says, or a YouTube title worth correcting; while a YouTube record waits, a title the source
 * changes later replaces it again), each kept as `givenName` makes it. The search index follows the
 * record. Throws `admin_only`,
 * `livestream_not_found`.
 */
export async function renameLivestream(
  deps: { livestreams: LivestreamRepo },
  request: { caller: Caller; id: string; title?: string; channelName?: string },
): Promise<Livestream> {
  requireAdmin(request.caller);
  const record = await getLivestream(deps, request.id);
  const change: DetailsChange = {
    ...(request.title === undefined ? {} : { title: givenName(request.title) }),
    ...(request.channelName === undefined ? {} : { channelName: givenName(request.channelName) }),
  };
  await deps.livestreams.update(record.id, change);
  return (await deps.livestreams.findById(record.id)) as Livestream;
}
