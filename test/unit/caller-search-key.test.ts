import { describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/core/accounts/account.js';
import { issueCallerKey, readCallerKey } from '../../src/http/search/caller-search-key.js';

const SECRET = 'stored-search-key';
const credential = { via: 'token' as const, hash: hashSecret('kura_some-api-token') };

describe('a caller-bound search key', () => {
  it('names the credential it was issued for until it expires', () => {
    const key = issueCallerKey(SECRET, credential, 1_000);
    expect(readCallerKey(SECRET, key, 999)).toEqual(credential);
    expect(readCallerKey(SECRET, key, 1_000)).toBeNull();
  });

  it('is refused when signed with another secret (the stored key was replaced)', () => {
    expect(readCallerKey('another-key', issueCallerKey(SECRET, credential, 1_000), 0)).toBeNull();
  });

  it('is refused when its payload is changed to name another credential or a later expiry', () => {
    const key = issueCallerKey(SECRET, credential, 1_000);
    const signature = key.split('.')[1] as string;
    const other = issueCallerKey(SECRET, { via: 'session', hash: hashSecret('someone-else') }, 1_000).split('.')[0] as string;
    const later = issueCallerKey(SECRET, credential, 9_999).split('.')[0] as string;
    expect(readCallerKey(SECRET, `${other}.${signature}`, 0)).toBeNull();
    expect(readCallerKey(SECRET, `${later}.${signature}`, 2_000)).toBeNull();
  });

  it('is refused when it is not a caller key at all', () => {
    expect(readCallerKey(SECRET, SECRET, 0)).toBeNull();
    expect(readCallerKey(SECRET, 'kura_search_a.b.c', 0)).toBeNull();
  });
});
