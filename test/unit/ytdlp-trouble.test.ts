import { describe, expect, it } from 'vitest';
import { refusalOf, ytdlpErrorWords } from '../../src/adapters/ytdlp/run-ytdlp.js';
import { failureInWords, isRefusal, troubleInWords, troubleOf, YtDlpFailure } from '../../src/adapters/ytdlp/ytdlp-trouble.js';
import { readWarnings, warningKindOf, warningsInShort } from '../../src/adapters/ytdlp/ytdlp-warnings.js';

// Lines as yt-dlp 2026.08.19 prints them: its own words from its source (networking/exceptions.py,
// extractor/youtube/_video.py, _base.py, YoutubeDL.py), and YouTube's reasons it passes on
// (docs/research/youtube-live-contract.md §2.4).
const LOGIN_HINT =
  'Use --cookies-from-browser or --cookies for the authentication. See  https://github.com/yt-dlp/yt-dlp/wiki/FAQ#how-do-i-pass-cookies-to-yt-dlp  for how to manually pass cookies. Also see  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies  for tips on effectively exporting YouTube cookies';
const ERRORS: Array<[string, string]> = [
  [
    'ERROR: [youtube] dQw4w9WgXcQ: Unable to download API page: HTTP Error 429: Too Many Requests (caused by <HTTPError 429: Too Many Requests>)',
    'rate_limited',
  ],
  [
    "ERROR: [youtube] dQw4w9WgXcQ: Video unavailable. This content isn't available, try again later. The current session has been rate-limited by YouTube for up to an hour. It is recommended to use `-t sleep` to add a delay between video requests to avoid exceeding the rate limit.",
    'rate_limited',
  ],
  [`ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm you’re not a bot. ${LOGIN_HINT}`, 'bot_check'],
  [`ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm you're not a bot. ${LOGIN_HINT}`, 'bot_check'],
  [`ERROR: [youtube] dQw4w9WgXcQ: Sign in to confirm your age. This video may be inappropriate for some users. ${LOGIN_HINT}`, 'sign_in'],
  ['ERROR: [youtube] dQw4w9WgXcQ: Join this channel to get access to members-only content like this video, and other exclusive perks.', 'members_only'],
  [
    "ERROR: [youtube] dQw4w9WgXcQ: This video is available to this channel's members on level: Gold. Join this channel to get access to members-only content and other exclusive perks.",
    'members_only',
  ],
  [`ERROR: [youtube] dQw4w9WgXcQ: Private video. Sign in if you've been granted access to this video. ${LOGIN_HINT}`, 'gone'],
  ['ERROR: [youtube] dQw4w9WgXcQ: Video unavailable. This video has been removed by the uploader', 'gone'],
  [
    'ERROR: [youtube] dQw4w9WgXcQ: Video unavailable. This video is no longer available because the YouTube account associated with this video has been terminated.',
    'gone',
  ],
  ['ERROR: [youtube:tab] UCxxxxxxxxxxxxxxxxxxxxxx: This channel does not exist.', 'gone'],
  ['ERROR: [youtube] dQw4w9WgXcQ: This live event will begin in 3 hours.', 'failed'],
  ['ERROR: [youtube] dQw4w9WgXcQ: Failed to extract any player response', 'failed'],
];

describe("classifying yt-dlp's error lines", () => {
  it.each(ERRORS)('%s → %s', (line, trouble) => {
    expect(troubleInWords(ytdlpErrorWords(line))).toBe(trouble);
  });

  it('tries cookies again only for a bot check, a sign-in or members-only', () => {
    expect(['bot_check', 'sign_in', 'members_only'].every((t) => isRefusal(t as never))).toBe(true);
    expect(['rate_limited', 'gone', 'timeout', 'missing', 'failed'].some((t) => isRefusal(t as never))).toBe(false);
  });

  it('reads the kind of any error (failed for one that is not a YtDlpFailure), and says a rate limit so a follow shows it', () => {
    expect(troubleOf(new YtDlpFailure('gone', 'Private video'))).toBe('gone');
    expect(troubleOf(new Error('something else'))).toBe('failed');
    expect(failureInWords(new YtDlpFailure('rate_limited', 'HTTP Error 429: Too Many Requests'))).toBe(
      'YouTube rate-limits Kura (HTTP 429): HTTP Error 429: Too Many Requests',
    );
    expect(failureInWords(new YtDlpFailure('gone', 'This channel does not exist.'))).toBe('This channel does not exist.');
  });
});

const STDERR = [
  'WARNING: [youtube] No supported JavaScript runtime could be found. Only deno is enabled by default; to use another runtime add  --js-runtimes RUNTIME[:PATH]  to your command/config. YouTube extraction without a JS runtime has been deprecated, and some formats may be missing. See  https://github.com/yt-dlp/yt-dlp/wiki/EJS  for details on installing one',
  'WARNING: [youtube] dQw4w9WgXcQ: Signature solving failed: Some formats may be missing. Ensure you have a supported JavaScript runtime and challenge solver script distribution installed.',
  'WARNING: [youtube] dQw4w9WgXcQ: Some tv client https formats have been skipped as they are missing a URL. YouTube may have enabled the SABR-only streaming experiment for the current session. See  https://github.com/yt-dlp/yt-dlp/issues/12482  for more details',
  'WARNING: [youtube] The provided YouTube account cookies are no longer valid. They have likely been rotated in the browser as a security measure. For tips on how to effectively export YouTube cookies, refer to  https://github.com/yt-dlp/yt-dlp/wiki/Extractors#exporting-youtube-cookies .',
  'WARNING: [youtube] dQw4w9WgXcQ: Join this channel to get access to members-only content like this video, and other exclusive perks.',
  'WARNING: [youtube] Starting download from the last 120 hours of the live stream since YouTube does not have data before that. If you think this is wrong, please report this issue on  https://github.com/yt-dlp/yt-dlp/issues?q= , filling out the appropriate issue template.',
  'WARNING: --live-from-start is passed, but there are no formats that can be downloaded from the start. If you want to download from the current time, use --no-live-from-start',
  // noise: said, and nothing Kura acts on
  'WARNING: [youtube] Skipping unsupported client "foo"',
  'WARNING: [youtube] No title found in player responses; falling back to title from initial data. Other metadata may also be missing',
  '[debug] not a warning at all',
].join('\n');

describe("reading yt-dlp's warnings", () => {
  it('keeps the meaningful ones in its words without the prefixes, each once, and drops the noise', () => {
    const warnings = readWarnings(`${STDERR}\n${STDERR}`);
    expect(warnings.map(warningKindOf)).toEqual(['no_js_runtime', 'po_token', 'sabr_only', 'cookies_invalid', 'members_only', 'window_120h', 'not_from_start']);
    expect(warnings[1]).toBe(
      'Signature solving failed: Some formats may be missing. Ensure you have a supported JavaScript runtime and challenge solver script distribution installed.',
    );
    expect(warnings[4]).toBe('Join this channel to get access to members-only content like this video, and other exclusive perks.');
  });

  it('says them in short, once per kind', () => {
    expect(warningsInShort(readWarnings(STDERR))).toBe(
      "yt-dlp found no JavaScript runtime, so formats may be missing; YouTube withheld formats (PO token or challenge); YouTube offers some formats only over SABR, which yt-dlp cannot download; the cookies (KURA_YTDLP_COOKIES) are no longer valid: export them again; members-only; YouTube keeps only the last 120 hours of a live stream; no formats from the stream's start",
    );
    expect(warningsInShort([])).toBeNull();
  });
});

describe('a refusal yt-dlp answered without failing (--ignore-no-formats-error)', () => {
  const formats = [{ format_id: '91' }];
  it('is members-only or sign-in by `availability` with no formats, a bot check or sign-in by a warning', () => {
    expect(refusalOf({ json: { availability: 'subscriber_only', formats: [] }, warnings: [] })).toBe('members_only');
    expect(refusalOf({ json: { availability: 'needs_auth', formats: [] }, warnings: [] })).toBe('sign_in');
    expect(refusalOf({ json: { availability: 'public', formats }, warnings: [`Sign in to confirm you’re not a bot. ${LOGIN_HINT}`] })).toBe('bot_check');
    expect(
      refusalOf({ json: { formats: [] }, warnings: ['Join this channel to get access to members-only content like this video, and other exclusive perks.'] }),
    ).toBe('members_only');
  });

  it('is not a public stream, upcoming or live, nor a members-only one opened by its cookies, nor a channel listing', () => {
    expect(refusalOf({ json: { availability: 'public', live_status: 'is_upcoming', formats: [] }, warnings: [] })).toBeNull();
    expect(refusalOf({ json: { availability: null, formats }, warnings: ['Signature solving failed: Some formats may be missing.'] })).toBeNull();
    expect(refusalOf({ json: { availability: 'subscriber_only', formats }, warnings: [] })).toBeNull();
    expect(refusalOf({ json: { _type: 'playlist', availability: null, entries: [] }, warnings: [] })).toBeNull();
  });
});
