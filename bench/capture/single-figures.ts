import type { LiveRuns } from './bare-ffmpeg.js';
import type { Statement } from './embedded-kura.js';
import { fixed } from './markdown.js';
import { byCategory, type Cost, type Step } from './phases.js';

// What the single section measures of one capture, read by the section and by its report.

/** A capture's CPU from queueing to the archive stored, cut into its phases. */
export interface CaptureCost {
  beforeCapture: Cost;
  recording: Cost;
  finalize: Step[];
  /** The finalize's children by kind (helpers such as `fallocate` included). */
  finalizeChildren: Map<string, { runs: number; cpu: number }>;
  total: Cost;
  wall: { queuedToCapturing: number; recording: number; finalize: number; total: number };
  peakRssMb: number;
  peakTreeRssMb: number;
  /** PostgreSQL's CPU from queueing to stored, by role (client backends, checkpointer, …). */
  postgresRoles: Record<string, number>;
}

/** The remux's share: the steps in which the remux ffmpeg ran (it and node feeding it and storing its output). */
export const remuxCost = (c: CaptureCost): Cost | null => byCategory(c.finalize).get('remux') ?? null;

/** One capture measured, with its baselines beside it and what each tool wrote. */
export interface MeasuredCapture {
  cost: CaptureCost;
  /** The whole tree's CPU over `--idle-before` seconds just before queueing, and those seconds. */
  idle: { seconds: number; cost: Cost };
  bare: LiveRuns;
  streamlink: LiveRuns | null;
  frames: { source: number; ours: Frames; bare: Frames[]; streamlink: Frames[] };
  statements: Statement[];
  /** All statements from queueing to stored, and the sessions (connections) opened meanwhile. */
  totals: { calls: number; ms: number; sessions: number };
}

export type Frames = { frames: number; duration: number };

export const describeChildren = (kinds: Map<string, { runs: number; cpu: number }>) =>
  [...kinds].map(([kind, e]) => `${kind} ${fixed(e.cpu)} s (${e.runs} run${e.runs === 1 ? '' : 's'})`).join(', ') || 'none';
