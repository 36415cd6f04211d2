import { describe, expect, it } from 'vitest';
import { createScryptPasswords } from '../../src/adapters/auth/scrypt-passwords.js';
import { safeNextPath } from '../../src/core/accounts/account.js';

describe('where a login may return to', () => {
  it('keeps paths of the instance, with their query', () => {
    expect(safeNextPath('/queue')).toBe('/queue');
    expect(safeNextPath('/history?page=2#top')).toBe('/history?page=2#top');
    expect(safeNextPath(undefined)).toBe('/');
  });

  it('turns every other target into /', () => {
    for (const next of ['https://evil.example', '//evil.example', '/\\evil.example', '\\\\evil.example', 'javascript:alert(1)', '/ /evil', 'queue', '/a b']) {
      expect(safeNextPath(next), next).toBe('/');
    }
  });
});

describe('scrypt passwords', () => {
  const passwords = createScryptPasswords({ N: 1024, r: 8, p: 1 }); // a low cost: the format and comparison are under test

  it('verifies the password it hashed, and nothing else', async () => {
    const hash = await passwords.hash('correct horse');
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await passwords.verify('correct horse', hash)).toBe(true);
    expect(await passwords.verify('correct horsE', hash)).toBe(false);
    expect(await passwords.hash('correct horse')).not.toBe(hash); // salted
  });

  it('says false for a malformed or absurdly costly hash instead of throwing', async () => {
    for (const hash of ['', 'bcrypt$x', 'scrypt$abc$8$1$salt$hash', `scrypt$${2 ** 30}$8$1$AAAA$AAAA`]) {
      expect(await passwords.verify('x', hash), hash).toBe(false);
    }
  });
});
