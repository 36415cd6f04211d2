import Type, { type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { PermanentError } from '../core/errors.js';

/** The payload of a job about one record: the record's id (which is also the job's key). */
export const RecordPayload = Type.Object({ livestreamId: Type.String({ minLength: 1 }) });

/** The payload of a job about no one record (a drain, a sweep, a verification run): nothing. */
export const NoPayload = Type.Object({});

/** How much of a malformed payload its refusal quotes. */
const SHOWN_CHARS = 200;

/** Each schema's compiled check, made at its first use. */
const checks = new WeakMap<TSchema, ReturnType<typeof Compile>>();

/**
 * A job's stored payload read with its schema. One that does not match (written by hand, by an
 * older release, or damaged) throws a PermanentError saying what is wrong: no retry can mend it,
 * and its handler is never given what it cannot read.
 */
export function readPayload<S extends TSchema>(jobName: string, schema: S, data: unknown): Static<S> {
  let check = checks.get(schema);
  if (check === undefined) {
    check = Compile(schema);
    checks.set(schema, check);
  }
  if (check.Check(data)) return data as Static<S>;
  const problems = check.Errors(data).map((error) => `${error.instancePath || '(payload)'} ${error.message}`);
  const shown = (JSON.stringify(data) ?? 'undefined').slice(0, SHOWN_CHARS);
  throw new PermanentError(`The ${jobName} job's payload is malformed (${problems.join('; ')}): ${shown}`);
}
