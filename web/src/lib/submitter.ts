// Decisions: docs/decisions/0075-original-interface-compatibility.md
// Submitters no account stands behind, named without asking the server: those the earlier service
// recorded, as `kura import` keeps them (`legacy/<value>`), and the operator's `kura archive`
// (`cli/<system user>`).
import { m } from './i18n.js';

/** The provider Kura keeps a submitter of the earlier service under when it was not `provider/id`. */
const LEGACY_PREFIX = 'legacy/';

/** A submitter without an account as shown, and what its tooltip explains. */
export interface LegacyName {
  name: string;
  title: string;
}

/**
 * `legacy/<value>` → a name without asking the server (no account stands behind it): a host name is
 * the earlier service queueing a stream by itself ("pomu.app (automatic)"); any other value is one
 * of its users, by the id it knew ("186447523415293952 (imported)"). Null for every other submitter.
 */
export function legacyName(submitter: string): LegacyName | null {
  if (!submitter.startsWith(LEGACY_PREFIX)) return null;
  const value = submitter.slice(LEGACY_PREFIX.length);
  const isHost = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(value) && !/^[\d.]+$/.test(value);
  return isHost
    ? { name: m.record_submitter_automatic({ value }), title: m.record_submitter_automatic_title({ value }) }
    : { name: m.record_submitter_imported({ value }), title: m.record_submitter_imported_title({ submitter }) };
}

/** `cli/<user>` → "<user> (command line)": the operator's `kura archive`; null for every other submitter. */
export function commandLineName(submitter: string): LegacyName | null {
  if (!submitter.startsWith('cli/')) return null;
  const user = submitter.slice('cli/'.length);
  return { name: m.record_submitter_cli({ user }), title: m.record_submitter_cli_title({ user }) };
}
