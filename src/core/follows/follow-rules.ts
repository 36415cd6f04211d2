// Decisions: docs/decisions/0095-title-rules-compiled-once-and-bounded.md
import { RE2JS } from 're2js';
import { AppError } from '../errors.js';
import { MEMBERS_ONLY_RULES, type FollowRules } from './follow.js';
import { expandedLength } from './rule-expansion.js';

/** Longest rule pattern accepted. */
export const MAX_RULE_LENGTH = 500;
/**
 * Longest a rule may be once its counted repetitions are written out (`a{3}` is `aaa`): what RE2
 * compiles, in time and memory, and what each match walks. 2,000 compiles in a few milliseconds;
 * the 110,000 of `.{1,1000}` fifty-five times took 0.3–2.4 s, at every check.
 */
export const MAX_RULE_EXPANSION = 2_000;
const QUALITY = /^[0-9]{3,4}p$|^best$/;

const invalid = (detail: string) => new AppError('invalid', 'invalid_follow', detail);

/**
 * Title rules run on RE2's engine: it matches in time linear in the title whatever the pattern, so
 * an admin's `(a+)+$` cannot stall the process on a streamer's title (a backtracking engine, such
 * as JavaScript's own, takes time exponential in the title there). The price is RE2's syntax: no
 * backreferences and no lookaround.
 */
const compile = (pattern: string) => RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);

/** Why a pattern cannot be a title rule, in RE2's words, or null when it can. */
function patternProblem(pattern: string): string | null {
  try {
    compile(pattern);
    return null;
  } catch (error) {
    const words = (error as Error).message;
    const unsupported = /\(\?(=|!|<[=!])|\\[1-9]/.test(pattern) ? ' (lookaround and backreferences are not supported: rules run in linear time)' : '';
    return `${words}${unsupported}`;
  }
}

/** Checks a follow's rules as at creation. Throws `invalid_follow` naming the rule and the regular expression engine's words. */
export function checkRules(rules: FollowRules): FollowRules {
  for (const [name, pattern] of [
    ['titleInclude', rules.titleInclude],
    ['titleExclude', rules.titleExclude],
  ] as const) {
    if (pattern === null) continue;
    if (pattern.length > MAX_RULE_LENGTH) throw invalid(`${name} is longer than ${MAX_RULE_LENGTH} characters.`);
    const cost = costProblem(pattern);
    if (cost !== null) throw invalid(`${name} is too costly to compile: ${cost}; use smaller counts, or + and *.`);
    const problem = patternProblem(pattern);
    if (problem !== null) throw invalid(`${name} is not a valid regular expression: ${problem}`);
  }
  if (!MEMBERS_ONLY_RULES.includes(rules.membersOnly)) throw invalid(`membersOnly must be one of ${MEMBERS_ONLY_RULES.join(', ')}.`);
  if (rules.quality !== null && !QUALITY.test(rules.quality)) throw invalid(`quality "${rules.quality}" is not a quality code like 720p or best.`);
  return rules;
}

/** Why a pattern would cost too much to compile (found without compiling it), or null. */
function costProblem(pattern: string): string | null {
  const expanded = expandedLength(pattern);
  return expanded > MAX_RULE_EXPANSION ? `its counted repetitions ({n,m}) write it out to ${expanded} characters, more than ${MAX_RULE_EXPANSION}` : null;
}

function compileBounded(pattern: string): RE2JS {
  const cost = costProblem(pattern);
  if (cost !== null) throw new Error(`too costly to compile: ${cost}`);
  return compile(pattern);
}

/** Says why a follow's title rules skip a title, or null when they let it through. */
export type TitleRefusal = (title: string) => string | null;

/**
 * Compiles a follow's title rules, once per change of them (the worker that holds the follow keeps
 * the result, see held-follows.ts). A stored rule RE2 cannot run (stored before rules ran on RE2),
 * or that is too costly to compile (stored before MAX_RULE_EXPANSION), skips every title, saying
 * so, until an admin edits it; it is not compiled.
 */
export function titleRules(rules: FollowRules): TitleRefusal {
  let include: RE2JS | null;
  let exclude: RE2JS | null;
  try {
    include = rules.titleInclude === null ? null : compileBounded(rules.titleInclude);
    exclude = rules.titleExclude === null ? null : compileBounded(rules.titleExclude);
  } catch (error) {
    return () => `a title rule cannot be run (${(error as Error).message}); edit the follow`;
  }
  return (title) => {
    if (include !== null && !include.test(title)) return `the title does not match /${rules.titleInclude}/i`;
    if (exclude !== null && exclude.test(title)) return `the title matches the excluded /${rules.titleExclude}/i`;
    return null;
  };
}
