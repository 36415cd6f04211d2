import { describe, expect, it } from 'vitest';
import { checkRules, titleRules } from '../../src/core/follows/follow-rules.js';
import type { FollowRules } from '../../src/core/follows/follow.js';

const rules = (extra: Partial<FollowRules>): FollowRules => ({ titleInclude: null, titleExclude: null, membersOnly: 'skip', quality: null, ...extra });

/** Titles that take a backtracking engine time exponential in their length on the patterns below (40–200 characters). */
const SHAPES = [(n: number) => `${'a'.repeat(n - 1)}!`, (n: number) => 'x'.repeat(n), (n: number) => `${'ab'.repeat(n)}`.slice(0, n - 1) + '1'];
const hostileTitles = (count: number, length: (i: number) => number) => Array.from({ length: count }, (_, i) => SHAPES[i % SHAPES.length]!(length(i)));

describe("a follow's title rules", () => {
  // the patterns an outside probe froze the server with for 86 s on a 31-character title
  const catastrophic = ['(a+)+$', '(x+x+)+y', '^(([a-z])+.)+[A-Z]([a-z])+$'];

  it.each(catastrophic)('run %s against 10,000 hostile titles of 40–200 characters in under 100 ms', (pattern) => {
    const titles = hostileTitles(10_000, (i) => 40 + (i % 161));
    const skipped: Record<string, number> = {};
    for (const [name, rule] of [
      ['include', rules({ titleInclude: pattern })],
      ['exclude', rules({ titleExclude: pattern })],
    ] as const) {
      const refusal = titleRules(checkRules(rule));
      // the best of three rounds: a busy machine can stall one round; a backtracking engine takes seconds in every round
      const rounds = Array.from({ length: 3 }, () => {
        const started = performance.now();
        skipped[name] = titles.filter((title) => refusal(title) !== null).length;
        return performance.now() - started;
      });
      expect(Math.min(...rounds), `${name} ${pattern}`).toBeLessThan(100);
    }
    // every title either matches or does not: the include rule skips exactly what the exclude rule keeps
    expect(skipped.include! + skipped.exclude!).toBe(titles.length);
  });

  it.each(catastrophic)('decide %s as JavaScript does, on titles short enough for JavaScript to decide', (pattern) => {
    const refusal = titleRules(rules({ titleInclude: pattern }));
    const javascript = new RegExp(pattern, 'i');
    for (const title of hostileTitles(30, (i) => 3 + (i % 12))) expect(refusal(title) === null, title).toBe(javascript.test(title));
  });

  it('match case-insensitively, anywhere in the title, in any script', () => {
    const refusal = titleRules(rules({ titleInclude: 'karaoke|歌枠', titleExclude: '\\brerun\\b' }));
    expect(refusal('【歌枠】 night')).toBeNull();
    expect(refusal('KARAOKE night')).toBeNull();
    expect(refusal('Zatsudan')).toBe('the title does not match /karaoke|歌枠/i');
    expect(refusal('Karaoke RERUN')).toBe('the title matches the excluded /\\brerun\\b/i');
    expect(refusal('Karaoke reruns')).toBeNull();
  });

  it('refuse what cannot run in linear time, saying so, and patterns that do not parse', () => {
    expect(() => checkRules(rules({ titleInclude: '(?=karaoke)' }))).toThrow(
      /titleInclude is not a valid regular expression: .*lookaround and backreferences are not supported/,
    );
    expect(() => checkRules(rules({ titleExclude: '(ka)\\1' }))).toThrow(
      /titleExclude is not a valid regular expression: .*lookaround and backreferences are not supported/,
    );
    expect(() => checkRules(rules({ titleInclude: '(unclosed' }))).toThrow(/titleInclude is not a valid regular expression: .*missing closing \)/);
  });

  it('skip every title, saying why, when a stored rule cannot be run any more', () => {
    // stored before rules ran on RE2: JavaScript took lookbehind, RE2 does not
    expect(titleRules(rules({ titleInclude: '(?<!re)run' }))('Karaoke run')).toMatch(/^a title rule cannot be run \(.+\); edit the follow$/);
  });
});
