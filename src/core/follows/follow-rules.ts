// Decisions: docs/decisions/0056-title-rules-re2.md
import { RE2JS } from 're2js';
import { AppError } from '../errors.js';
import { MEMBERS_ONLY_RULES, type FollowRules } from './follow.js';

/** Longest rule pattern accepted (a guard against patterns that take long to compile). */
export const MAX_RULE_LENGTH = 500;
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
    const problem = patternProblem(pattern);
    if (problem !== null) throw invalid(`${name} is not a valid regular expression: ${problem}`);
  }
  if (!MEMBERS_ONLY_RULES.includes(rules.membersOnly)) throw invalid(`membersOnly must be one of ${MEMBERS_ONLY_RULES.join(', ')}.`);
  if (rules.quality !== null && !QUALITY.test(rules.quality)) throw invalid(`quality "${rules.quality}" is not a quality code like 720p or best.`);
  return rules;
}

/** Says why a follow's title rules skip a title, or null when they let it through. */
export type TitleRefusal = (title: string) => string | null;

/**
 * Compiles a follow's title rules once for the titles of a check. A rule stored before rules ran
 * on RE2, and that RE2 cannot run, skips every title, saying so, until an admin edits it.
 */
export function titleRules(rules: FollowRules): TitleRefusal {
  let include: RE2JS | null;
  let exclude: RE2JS | null;
  try {
    include = rules.titleInclude === null ? null : compile(rules.titleInclude);
    exclude = rules.titleExclude === null ? null : compile(rules.titleExclude);
  } catch (error) {
    return () => `a title rule cannot be run (${(error as Error).message}); edit the follow`;
  }
  return (title) => {
    if (include !== null && !include.test(title)) return `the title does not match /${rules.titleInclude}/i`;
    if (exclude !== null && exclude.test(title)) return `the title matches the excluded /${rules.titleExclude}/i`;
    return null;
  };
}
