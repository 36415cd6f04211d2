// Decisions: docs/decisions/0012-users-local-accounts-passwords.md
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../core/accounts/ports.js';

/** OWASP's scrypt floor is N=2^17 with r=8; 2^15 keeps a login near 0.1 s on a small VPS core. */
const COST = { N: 32768, r: 8, p: 1 };
const KEY_BYTES = 32;
const MAX_COST = 1 << 20;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128 * N * r bytes
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...options, maxmem: 256 * (options.N ?? 0) * (options.r ?? 0) }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Passwords as `scrypt$N$r$p$salt$hash` (node:crypto), compared in constant time. */
export function createScryptPasswords(cost: { N: number; r: number; p: number } = COST): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, cost);
      return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
    },
    async verify(password, stored) {
      const [scheme, n, r, p, salt, hash] = stored.split('$');
      const N = Number(n);
      if (scheme !== 'scrypt' || salt === undefined || hash === undefined || !Number.isInteger(N) || N < 2 || N > MAX_COST) return false;
      const expected = Buffer.from(hash, 'base64url');
      const key = await derive(password, Buffer.from(salt, 'base64url'), { N, r: Number(r), p: Number(p) });
      return expected.length === key.length && timingSafeEqual(expected, key);
    },
  };
}
