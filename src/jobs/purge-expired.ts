import type { ExpiredPurger } from '../core/accounts/ports.js';

/**
 * Every `everySeconds`, deletes expired sessions, login attempts and rate-limit windows (each
 * worker does; the delete is idempotent and cheap). Expired rows are already refused when read:
 * this only keeps the tables small. Runs once at start. Returns a stop function.
 */
export function startPurgingExpired(purger: ExpiredPurger, options: { everySeconds: number; onError: (error: Error) => void }): () => void {
  const purge = () => void purger.purgeExpired().catch(options.onError);
  purge();
  const timer = setInterval(purge, options.everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
