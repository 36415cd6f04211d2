import { RE2JS } from 're2js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkRules, MAX_RULE_EXPANSION, titleRules } from '../../src/core/follows/follow-rules.js';
import { expandedLength } from '../../src/core/follows/rule-expansion.js';
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

  it('skip every title, saying why, when a stored rule is too costly to compile, and do not compile it', () => {
    // stored before rules were bounded: 495 characters, 110,000 once written out
    const compiled = vi.spyOn(RE2JS, 'compile');
    const refusal = titleRules(rules({ titleInclude: 'karaoke', titleExclude: '.{1,1000}'.repeat(55) }));
    expect(refusal('Karaoke night')).toBe(
      'a title rule cannot be run (too costly to compile: its counted repetitions ({n,m}) write it out to 110000 characters, more than 2000); edit the follow',
    );
    expect(compiled.mock.calls.map(([pattern]) => pattern)).toEqual(['karaoke']);
  });
});

describe('how long a title rule is once RE2 writes out its counted repetitions', () => {
  afterEach(() => vi.restoreAllMocks());

  // what RE2 compiles the rule into (its program's size) is what costs; the figure is read without compiling
  const shapes = [
    'karaoke|歌枠',
    '.{1,100}'.repeat(5),
    '(?:.{1,10}){1,100}'.repeat(2),
    '[a-z]{1,100}'.repeat(40),
    '(?:karaoke|singing){1,10}'.repeat(19),
    '\\p{Greek}{3,}x{2}',
    '[]{]{3}\\Q{5}\\E{3}',
  ];
  it.each(shapes)('is never less than the size of the program RE2 compiles %s into, but for the instructions every program has', (pattern) => {
    const size = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE).programSize();
    expect(expandedLength(pattern)).toBeGreaterThanOrEqual(size - 3);
    expect(expandedLength(pattern)).toBeLessThanOrEqual(2 * size);
  });

  it('refuses a rule past the bound at creation without compiling it, naming the rule', () => {
    const compiled = vi.spyOn(RE2JS, 'compile');
    expect(() => checkRules(rules({ titleExclude: '[a-z]{1,100}'.repeat(40) }))).toThrow(
      `titleExclude is too costly to compile: its counted repetitions ({n,m}) write it out to 8000 characters, more than ${MAX_RULE_EXPANSION}; use smaller counts, or + and *.`,
    );
    expect(compiled).not.toHaveBeenCalled();
    // a count that fits is taken
    expect(checkRules(rules({ titleInclude: '\\bpart [0-9]{1,3}\\b' })).titleInclude).toBe('\\bpart [0-9]{1,3}\\b');
  });
});
