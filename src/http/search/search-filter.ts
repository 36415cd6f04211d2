// Decisions: docs/decisions/0094-builtin-engine-as-meilisearch-bounded.md
import { FILTER_FIELDS, type FilterField, type SearchFilter } from '../../core/search/search.js';
import { invalidRequest } from './meili-error.js';

/** Longest filter accepted, in characters. */
export const MAX_FILTER_LENGTH = 2000;

/**
 * Reads a Meilisearch filter: a string (`status = finished AND (platform = hls OR channelId != "x")`)
 * or the array form (outer items AND-ed, inner arrays OR-ed). Supported: `=`, `!=`, `AND`, `OR`,
 * parentheses, quoted or bare values, on finished, status, channelId and platform.
 * Throws MeiliError `invalid_search_filter`.
 */
export function parseFilter(input: unknown): SearchFilter | null {
  if (input === undefined || input === null) return null;
  if (typeof input === 'string') return input.trim() === '' ? null : parseExpression(input);
  if (Array.isArray(input)) {
    const items = input.map((item) => {
      if (typeof item === 'string') return parseExpression(item);
      if (Array.isArray(item) && item.every((inner) => typeof inner === 'string')) {
        return { kind: 'or' as const, items: item.map((inner: string) => parseExpression(inner)) };
      }
      throw invalid('Invalid value type: the filter array holds strings or arrays of strings.');
    });
    return { kind: 'and', items };
  }
  throw invalid('Invalid value type: expected a string or an array.');
}

function invalid(message: string) {
  return invalidRequest('invalid_search_filter', message);
}

type Token = { kind: 'word' | 'string' | 'op' | 'open' | 'close'; text: string };

function tokenize(source: string): Token[] {
  if (source.length > MAX_FILTER_LENGTH) throw invalid(`The filter is longer than ${MAX_FILTER_LENGTH} characters.`);
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] as string;
    if (/\s/.test(c)) i++;
    else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close', text: c });
      i++;
    } else if (c === '=' || source.startsWith('!=', i)) {
      tokens.push({ kind: 'op', text: c === '=' ? '=' : '!=' });
      i += c === '=' ? 1 : 2;
    } else if (c === '"' || c === "'") {
      let text = '';
      let j = i + 1;
      for (; j < source.length && source[j] !== c; j++) text += source[j] === '\\' && j + 1 < source.length ? (source[++j] as string) : source[j];
      if (j >= source.length) throw invalid(`Unclosed quote at character ${i}.`);
      tokens.push({ kind: 'string', text });
      i = j + 1;
    } else {
      const word = /^[^\s()=!"']+/.exec(source.slice(i))?.[0];
      if (word === undefined) throw invalid(`Unexpected "${c}" at character ${i}.`);
      tokens.push({ kind: 'word', text: word });
      i += word.length;
    }
  }
  return tokens;
}

function parseExpression(source: string): SearchFilter {
  const tokens = tokenize(source);
  let at = 0;
  const keyword = (name: string) => tokens[at]?.kind === 'word' && tokens[at]?.text.toUpperCase() === name;
  const list = (name: 'OR' | 'AND', next: () => SearchFilter): SearchFilter => {
    const items = [next()];
    while (keyword(name)) {
      at++;
      items.push(next());
    }
    return items.length === 1 ? (items[0] as SearchFilter) : { kind: name === 'OR' ? 'or' : 'and', items };
  };
  const or = (): SearchFilter => list('OR', and);
  const and = (): SearchFilter => list('AND', primary);
  const primary = (): SearchFilter => {
    const token = tokens[at++];
    if (token?.kind === 'open') {
      const inner = or();
      if (tokens[at++]?.kind !== 'close') throw invalid('Expected a closing parenthesis.');
      return inner;
    }
    if (token === undefined || (token.kind !== 'word' && token.kind !== 'string')) throw invalid('Expected an attribute name.');
    const op = tokens[at++];
    const value = tokens[at++];
    if (op?.kind !== 'op') throw invalid(`Expected = or != after \`${token.text}\`; the filter supports =, !=, AND, OR and parentheses.`);
    if (value === undefined || (value.kind !== 'word' && value.kind !== 'string')) throw invalid(`Expected a value after \`${token.text} ${op.text}\`.`);
    return term(token.text, op.text === '=', value.text);
  };
  const filter = or();
  if (at < tokens.length) throw invalid(`Unexpected \`${tokens[at]?.text}\`; the filter supports =, !=, AND, OR and parentheses.`);
  return filter;
}

function term(field: string, equal: boolean, raw: string): SearchFilter {
  if (!(FILTER_FIELDS as readonly string[]).includes(field)) {
    throw invalid(`Attribute \`${field}\` is not filterable. Available filterable attributes are: \`${FILTER_FIELDS.join(', ')}\`.`);
  }
  if (field === 'finished') {
    if (raw !== 'true' && raw !== 'false') throw invalid(`\`finished\` is true or false (got \`${raw}\`).`);
    return { kind: 'term', field, equal, value: raw === 'true' };
  }
  return { kind: 'term', field: field as FilterField, equal, value: raw };
}
