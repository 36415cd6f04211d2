/** Each `kura` command's lines in `kura help`, indented as they are printed (kept apart from the commands, so that the help loads none of them). */
export const USAGES = {
  serve: '  serve          run Kura (api and worker, per KURA_ROLE)',
  migrate: '  migrate        bring the database schema up to date and exit',
  import: `  import FILE [--base-url URL]
                 import records in the /api/history JSON shape (all or nothing); relative
                 download URLs (an original instance's export) are resolved against URL`,
  backup: `  backup FILE    write a backup of the database to FILE (gzip): every table Kura owns, in one
                 snapshot, and a manifest of the stored archives; works while Kura runs`,
  restore: `  restore FILE [--force]
                 restore a backup into this instance, which must be empty (no records, users, follows
                 or webhooks) and stopped; --force replaces everything it holds`,
  archive: `  archive URL [--title T] [--channel C] [--quality Q]
                 queue a YouTube livestream or an HLS stream (.m3u8) for archiving, as the operator`,
  user: `  user add NAME [--admin]
                 create a local account (or set its password and role); the password is read from stdin`,
  token: `  token create USER
                 print a new API token for USER (a local account name, or provider/userId)`,
  follow: `  follow add URL [--channel NAME] [--title T] [--title-include RE] [--title-exclude RE]
             [--members-only skip|include] [--quality Q] [--keep-last N] [--max-age-days D] [--max-gb G]
                 follow a YouTube channel (/channel/UC…, /@handle, UC…, @handle), holodex:org/NAME,
                 holodex:topic/NAME, a Twitch channel (https://www.twitch.tv/NAME, with
                 KURA_TWITCH_CLIENT_ID and _SECRET) or an HLS endpoint (.m3u8): its streams are queued by themselves;
                 prints the follow's id
  follow list [--json]
                 a header, then one line per follow: id, kind, health, streams queued, channel, url
                 ("none" when there is none); --json: a JSON array of the same
  follow retention ID [--keep-last N|none] [--max-age-days D|none] [--max-gb G|none]
                 change how many of the archives it queued are kept (none: no limit)
  follow remove|pause|resume ID`,
  webhook: `  webhook add URL [--events a,b] [--channel ID]
                 send signed events (Standard Webhooks) to URL: every event, or only these types
                 (livestream.queued,live,finished,failed,removed, follow.unhealthy), of every
                 channel or only one;
                 prints the webhook's id and its signing secret (shown this once)
  webhook list [--json]
                 a header, then one line per webhook: id, state, events, channel, url
                 ("none" when there is none); --json: a JSON array of the same
  webhook remove ID`,
  search: '  search reindex rebuild the search index from the records (KURA_SEARCH engine)',
  verify: `  verify [ID|--all]
                 check stored archives now: without arguments what one hourly run checks, ID one
                 record's archive (size and sha256), --all every archive (size and sha256);
                 exits 1 when one is missing or corrupt`,
  clip: `  clip ID START END [-o FILE]
                 cut START to END (seconds, 1:02:03 or 1h02m03s) of an archive into an MP4 without
                 re-encoding, from the keyframe at or before START; into FILE (- for stdout), else a
                 file named like the download, in this directory`,
  retention: `  retention [--dry-run] [--json]
                 apply the retention rules now (as the hourly job does): a header, then one line per
                 archive removed: id, title, size (bytes), reason ("none" when none), then the space
                 freed; --dry-run: what it would remove, removing nothing; --json: a JSON array`,
  doctor: `  doctor         check what Kura needs here (ffmpeg, yt-dlp with its JavaScript runtime and
                 challenge solver, the cookies file, storage, the database, the public URL):
                 ✔ or ✘ with the fix for each; exits 1 when something fails`,
} as const;

/** What `kura help` prints (and an unknown command, after its complaint). */
export const USAGE = `Usage: kura <command>

Commands:
${Object.values(USAGES).join('\n')}
  version        print the release and the commit it was built from (also --version)
  help           show this text

Configuration comes from the environment and .env; see .env.example.`;
