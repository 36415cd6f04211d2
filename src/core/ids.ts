// Decisions: docs/decisions/0069-cli-output-and-arguments.md
import { randomBytes } from 'node:crypto';

/**
 * A new random id of `bytes` random bytes in base64url (9 bytes: 12 characters), never beginning
 * with "-": a person types ids into the CLI, where a leading "-" reads as an option. Redrawing
 * such an id (1 in 64) keeps the others uniformly random.
 */
export function mintId(bytes = 9): string {
  for (;;) {
    const id = randomBytes(bytes).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
