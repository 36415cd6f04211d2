// Decisions: docs/decisions/0106-what-runs-when-idle.md
import type { Static, TObject, TSchema, TString } from 'typebox';
import type { Compile } from 'typebox/compile';
import { PermanentError } from '../../core/errors.js';

/*
 * The payload schemas are written as the JSON Schema `Type.Object` makes, and typebox's compiler is
 * loaded at the first payload read: loading typebox is most of what sending a job would cost a CLI
 * command otherwise (decision 0100); only a worker reads payloads.
 */

/** The payload of a job about one record: the record's id (which is also the job's key). */
export const RecordPayload = {
  type: 'object',
  required: ['livestreamId'],
  properties: { livestreamId: { type: 'string', minLength: 1 } },
} as unknown as TObject<{ livestreamId: TString }>;

/** The payload of a job about no one record (a drain, a sweep, a verification run): nothing. */
export const NoPayload = { type: 'object', properties: {} } as unknown as TObject<Record<string, never>>;

/** How much of a malformed payload its refusal quotes. */
const SHOWN_CHARS = 200;

/** Each schema's compiled check, made at its first use. */
const checks = new WeakMap<TSchema, ReturnType<typeof Compile>>();
let compiler: Promise<typeof Compile> | null = null;

/**
 * A job's stored payload read with its schema. One that does not match (written by hand, by an
 * older release, or damaged) throws a PermanentError saying what is wrong: no retry can mend it,
 * and its handler is never given what it cannot read.
 */
export async function readPayload<S extends TSchema>(jobName: string, schema: S, data: unknown): Promise<Static<S>> {
  let check = checks.get(schema);
  if (check === undefined) {
    compiler ??= import('typebox/compile').then((module) => module.Compile);
    check = (await compiler)(schema);
    checks.set(schema, check);
  }
  if (check.Check(data)) return data as Static<S>;
  const problems = check.Errors(data).map((error) => `${error.instancePath || '(payload)'} ${error.message}`);
  const shown = (JSON.stringify(data) ?? 'undefined').slice(0, SHOWN_CHARS);
  throw new PermanentError(`The ${jobName} job's payload is malformed (${problems.join('; ')}): ${shown}`);
}
