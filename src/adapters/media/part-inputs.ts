// Decisions: docs/decisions/0039-finalize-writes-once.md
import path from 'node:path';
import type { ByteSource } from '../../core/archive/ports.js';
import { serveParts, type InputPacing, type PartServer } from './part-server.js';

/** Past this many files in one part, it is read through the part server: the concat protocol opens all of a part's files at once. */
const MAX_FILES_PER_PART = 512;

/** How one ffmpeg run names its input parts. */
export interface PartInputs {
  urls: string[];
  /** ffmpeg's working directory: local files are named relative to it. */
  cwd?: string;
  /** The protocols ffmpeg may open (`-protocol_whitelist`). */
  protocols: string;
  /** The loopback server the parts are read from, if they are. */
  server: PartServer | null;
  close(): Promise<void>;
}

/**
 * The parts as ffmpeg reads them: each part's local files joined by the concat protocol, which
 * ffmpeg reads and seeks like the one file they make (so it places each part on the timeline as
 * it would the joined file), with nothing of Kura in between; else each part's URL on a loopback
 * part server reading them from the store (held back by `pacing`).
 */
export async function partInputs(parts: readonly ByteSource[], pacing?: InputPacing): Promise<PartInputs> {
  const local = localInputs(parts);
  if (local !== null) return { ...local, protocols: 'file,concat', server: null, close: async () => undefined };
  const server = await serveParts(parts, pacing);
  return { urls: server.urls, protocols: 'file,http,tcp', server, close: () => server.close() };
}

/** `urls` (one per source, in order) in the groups of `inputs`: each input's parts, named as ffmpeg reads them. */
export function grouped<T>(urls: readonly string[], inputs: ReadonlyArray<readonly T[]>): string[][] {
  let at = 0;
  return inputs.map((input) => urls.slice(at, (at += input.length)));
}

/** A concat demuxer list of `urls` (ffmpeg's `file` directives, quoted). */
export function concatList(urls: readonly string[]): string {
  return urls.map((url) => `file '${url.replaceAll("'", "'\\''")}'\n`).join('');
}

function localInputs(parts: readonly ByteSource[]): { urls: string[]; cwd: string } | null {
  const files = parts.map((part) => part.files ?? []);
  if (files.some((list) => list.length === 0 || list.length > MAX_FILES_PER_PART)) return null;
  const cwd = commonDirectory(files.flat());
  // the concat protocol splits its list at '|', with no way to escape one; named from their
  // common folder, the files are named by their object keys, which have none
  const names = files.map((list) => list.map((file) => path.relative(cwd, file)));
  if (names.flat().some((name) => name.includes('|'))) return null;
  return { urls: names.map((list) => `concat:${list.join('|')}`), cwd };
}

function commonDirectory(files: readonly string[]): string {
  let common = path.dirname(files[0] as string);
  const within = (file: string) => !path.relative(common, file).startsWith(`..${path.sep}`);
  while (!files.every(within) && path.dirname(common) !== common) common = path.dirname(common);
  return common;
}
