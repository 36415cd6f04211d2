// Decisions: docs/decisions/0002-one-check-of-raw-input.md
import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';

/** The parts of a request Fastify validates, named as in its validation errors. */
type Part = 'params' | 'querystring' | 'body';

/** What the edge refused: where (a JSON pointer inside the part) and why. */
interface InputRefusal {
  part: Part;
  path: string;
  message: string;
}

/** Whole numbers as a person writes them: decimal digits, a leading "-" at most, at most 15 digits (always exact). */
const PLAIN_INTEGER = /^-?[0-9]{1,15}$/;
const PLAIN_NUMBER = /^-?[0-9]{1,15}(\.[0-9]{1,15})?$/;
const NUL_MESSAGE = 'must not contain a NUL character (\\u0000)';

/**
 * Refuses, for every route and before its schema or handler sees the request, the inputs that
 * slip past JSON Schema with type coercion on: a NUL character in any string of the path, the
 * query or the body (PostgreSQL text cannot hold one, so it would answer 500), and a path or
 * query number not written in plain decimal digits (`Infinity`, `-1e400`, `0x10`, `1e3`, ` 5`,
 * `5.0` would be coerced to a number nobody meant). The refusal is thrown as a validation error
 * of that part, so each error handler (problem JSON, or Meilisearch's format under the search
 * engine) words it like any other invalid parameter.
 */
export function installInputChecks(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const refusal = findHostileInput(request);
    done(refusal === null ? undefined : validationError(refusal));
  });
}

/**
 * A route's own `preValidation` hook refusing each of `fields` that the body holds as anything but
 * a JSON string: type coercion, on for every route, would turn `["a"]` into "a" and `5` into "5"
 * where the route takes only text a person wrote (a name). Refused as a validation error of the
 * body, as the checks above are.
 */
export function requireStrings(...fields: string[]): preValidationHookHandler {
  return refuseNonStrings(fields, false);
}

/** As requireStrings, for fields where null is also taken (it clears them). */
export function requireStringsOrNull(...fields: string[]): preValidationHookHandler {
  return refuseNonStrings(fields, true);
}

function refuseNonStrings(fields: readonly string[], nullTaken: boolean): preValidationHookHandler {
  return (request, _reply, done) => {
    const body = request.body;
    const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const taken = (value: unknown) => value === undefined || typeof value === 'string' || (nullTaken && value === null);
    const field = fields.find((name) => !taken(given[name]));
    done(
      field === undefined
        ? undefined
        : validationError({ part: 'body', path: `/${field}`, message: nullTaken ? 'must be a JSON string or null' : 'must be a JSON string' }),
    );
  };
}

/** The first hostile input of a request, or null. */
function findHostileInput(request: Pick<FastifyRequest, 'params' | 'query' | 'body' | 'routeOptions'>): InputRefusal | null {
  const parts: Array<[Part, unknown]> = [
    ['params', request.params],
    ['querystring', request.query],
    ['body', request.body],
  ];
  for (const [part, value] of parts) {
    const path = pathOfNul(value);
    if (path !== null) return { part, path, message: NUL_MESSAGE };
  }
  for (const part of ['params', 'querystring'] as const) {
    const refusal = unplainNumber(part, request.routeOptions.schema?.[part], part === 'params' ? request.params : request.query);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** The JSON pointer of the first string (or key) holding a NUL; iterative, so any nesting depth is safe. */
function pathOfNul(root: unknown): string | null {
  const pending: Array<[unknown, string]> = [[root, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => pending.push([item, `${path}/${i}`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return `${path}/${key.replaceAll('\u0000', '\\u0000')}`;
        pending.push([item, `${path}/${key}`]);
      }
    }
  }
  return null;
}

/** A path or query value its schema declares a number (or integer) that is not written as one. */
function unplainNumber(part: 'params' | 'querystring', schema: unknown, values: unknown): InputRefusal | null {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (properties === undefined || values === null || typeof values !== 'object') return null;
  for (const [name, property] of Object.entries(properties)) {
    const pattern = property.type === 'integer' ? PLAIN_INTEGER : property.type === 'number' ? PLAIN_NUMBER : null;
    const given = (values as Record<string, unknown>)[name];
    if (pattern === null || given === undefined) continue;
    for (const value of Array.isArray(given) ? given : [given]) {
      if (typeof value === 'string' && !pattern.test(value)) {
        const kind = property.type === 'integer' ? 'a whole number' : 'a number';
        return { part, path: `/${name}`, message: `must be ${kind} in plain decimal digits (no spaces, exponent, hexadecimal or Infinity)` };
      }
    }
  }
  return null;
}

/** The refusal as Fastify shapes a schema violation (`validation`, `validationContext`). */
function validationError(refusal: InputRefusal): Error {
  const error = new Error(`${refusal.part}${refusal.path} ${refusal.message}`);
  return Object.assign(error, {
    statusCode: 400,
    validation: [{ keyword: 'input', instancePath: refusal.path, schemaPath: '#', params: {}, message: refusal.message }],
    validationContext: refusal.part,
  });
}
