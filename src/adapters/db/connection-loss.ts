// Decisions: docs/decisions/0028-database-outages.md
import { AppError } from '../../core/errors.js';

/** Node's socket errors that mean the database is not there (refused, reset, unreachable). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** PostgreSQL's: class 08 (connection exception), 57P01–57P03 (shutting down, crashed, starting up). */
const SERVER_CODES = /^(08...|57P0[123])$/;
/** What pg says when the socket closes under it, or no connection comes within connectionTimeoutMillis. */
const CLIENT_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i;

/** Whether `error` means PostgreSQL cannot be reached (as opposed to a query it refused). */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'database_unavailable';
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.test(code))) return true;
  return CLIENT_MESSAGES.test(error.message);
}

/** The answer to a lost database: `database_unavailable` (503, Retry-After), what a client can wait out. */
export function databaseUnavailable(): AppError {
  return new AppError('unavailable', 'database_unavailable', 'PostgreSQL cannot be reached at the moment; try again shortly.', 5);
}

/** Rethrows a lost connection as `database_unavailable`, anything else as it is. */
export function translateConnectionLoss(error: unknown): never {
  throw isConnectionLoss(error) ? databaseUnavailable() : error;
}
