import { AppError } from '../errors.js';
import { MEMBERS_ONLY_RULES, type FollowRules } from './follow.js';

/** Longest rule pattern accepted (a guard against patterns that take long to compile or run). */
export const MAX_RULE_LENGTH = 500;
const QUALITY = /^[0-9]{3,4}p$|^best$/;

const invalid = (detail: string) => new AppError('invalid', 'invalid_follow', detail);

/** Checks a follow's rules as at creation. Throws `invalid_follow` naming the rule and the regular expression engine's words. */
export function checkRules(rules: FollowRules): FollowRules {
  for (const [name, pattern] of [
    ['titleInclude', rules.titleInclude],
    ['titleExclude', rules.titleExclude],
  ] as const) {
    if (pattern === null) continue;
    if (pattern.length > MAX_RULE_LENGTH) throw invalid(`${name} is longer than ${MAX_RULE_LENGTH} characters.`);
    try {
      new RegExp(pattern, 'i');
    } catch (error) {
      throw invalid(`${name} is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  if (!MEMBERS_ONLY_RULES.includes(rules.membersOnly)) throw invalid(`membersOnly must be one of ${MEMBERS_ONLY_RULES.join(', ')}.`);
  if (rules.quality !== null && !QUALITY.test(rules.quality)) throw invalid(`quality "${rules.quality}" is not a quality code like 720p or best.`);
  return rules;
}

/** Why the title rules skip a title, or null when they let it through. */
export function titleRefusal(rules: FollowRules, title: string): string | null {
  if (rules.titleInclude !== null && !new RegExp(rules.titleInclude, 'i').test(title)) {
    return `the title does not match /${rules.titleInclude}/i`;
  }
  if (rules.titleExclude !== null && new RegExp(rules.titleExclude, 'i').test(title)) {
    return `the title matches the excluded /${rules.titleExclude}/i`;
  }
  return null;
}
