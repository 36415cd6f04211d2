import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../src/core/errors.js';
import { JOB_NAMES, JOBS } from '../../src/jobs/catalogue.js';
import { finalFailure, type JobDefinition } from '../../src/jobs/job-definition.js';
import { NoPayload, readPayload, RecordPayload } from '../../src/jobs/runtime/payloads.js';

/** What readPayload threw, or null. */
async function refusal(schema: typeof RecordPayload | typeof NoPayload, data: unknown): Promise<PermanentError | null> {
  try {
    await readPayload('capture-stream', schema, data);
    return null;
  } catch (error) {
    return error as PermanentError;
  }
}

describe("a job's payload, read with its schema when the job is taken", () => {
  it("is handed on as it is when it matches: a record's id, or nothing", async () => {
    expect(await readPayload('capture-stream', RecordPayload, { livestreamId: 'abc-123' })).toEqual({ livestreamId: 'abc-123' });
    expect(await readPayload('index-records', NoPayload, {})).toEqual({});
  });

  it('is refused for good, saying where and what is wrong, when it does not match', async () => {
    for (const data of [{}, { livestreamId: 42 }, { livestreamId: '' }, null, 'abc', undefined]) {
      const refused = await refusal(RecordPayload, data);
      expect(refused, JSON.stringify(data)).toBeInstanceOf(PermanentError);
      expect(refused?.reason).toMatch(/^The capture-stream job's payload is malformed \(.+\): /);
      // a PermanentError: the runner ends the job at once, whatever retries are left
      expect(finalFailure(refused, { retryCount: 0, retryLimit: 500 })).toMatchObject({ permanent: true, attempts: 1 });
    }
    expect((await refusal(RecordPayload, { livestreamId: 42 }))?.reason).toContain('/livestreamId');
    expect((await refusal(NoPayload, null))?.reason).toMatch(/malformed .*: null$/);
  });

  it('quotes a long malformed payload only in part', async () => {
    expect((await refusal(RecordPayload, { junk: 'x'.repeat(10_000) }))?.reason.length).toBeLessThan(600);
  });

  it('has the schemas typebox makes, written out so that sending a job loads no typebox', () => {
    expect(RecordPayload).toEqual(Type.Object({ livestreamId: Type.String({ minLength: 1 }) }));
    expect(NoPayload).toEqual(Type.Object({}));
  });

  it('has a schema for every job of the catalogue', () => {
    for (const name of JOB_NAMES) expect((JOBS[name] as JobDefinition).payload, name).toHaveProperty('type', 'object');
  });
});
