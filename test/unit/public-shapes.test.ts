import { describe, expectTypeOf, it } from 'vitest';
import type { PublicFollow } from '../../src/core/follows/public-follow.js';
import type { PublicRecord } from '../../src/core/record-actions/public-record.js';
import type { FollowJson } from '../../src/http/follows/follows.schema.js';
import type { LivestreamRecord } from '../../src/http/livestreams/record.schema.js';

// The API's presenters and the webhook bodies both call core's public shapes; these checks (made by
// tsc, which type-checks the tests) keep each shape and the API schema that documents it the same.
describe("core's public shapes and the API's schemas", () => {
  it('a record is what LivestreamRecordSchema says, no more, no less', () => {
    expectTypeOf<PublicRecord>().toEqualTypeOf<LivestreamRecord>();
  });

  it('a follow is what FollowSchema says, no more, no less', () => {
    expectTypeOf<PublicFollow>().toEqualTypeOf<FollowJson>();
  });
});
