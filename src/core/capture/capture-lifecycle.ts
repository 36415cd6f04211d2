// Decisions: docs/decisions/0090-a-stream-that-goes-on.md
/**
 * A capture's own states, beside its record's (src/core/records/lifecycle.ts): a worker records
 * it (`capturing`), recording stops (`ended`), finalize stores the archive and deletes the chunks
 * (`finalized`). A capture that ended as the stream may go on (mayGoOn, decision 0090) is finalized
 * `kept`: its chunks stay, and it is `reopened` when the stream goes on, or `let_go` (its chunks
 * deleted) once it cannot. The row is created `capturing` by the first claim;
 * `CaptureStates.forget` deletes one that recorded no segment, which is no state of its own (the
 * next claim creates it afresh).
 */
export type CaptureState = 'capturing' | 'ended' | 'kept' | 'finalized';
export const CAPTURE_STATES = ['capturing', 'ended', 'kept', 'finalized'] as const satisfies readonly CaptureState[];

/** What can happen to a capture; each is one statement of the capture repository, named beside it. */
export type CaptureEvent =
  /** A worker takes the capture to record it, the first or one taking a stale lease over (`claim`). */
  | 'claimed'
  /** The worker holding the capture renews its lease (`heartbeat`), recording or finalizing. */
  | 'lease_renewed'
  /** An admin asks the recording worker to stop (`requestStop`). */
  | 'stop_requested'
  /** The recording worker notes a chunk it stored in the archive store (`recordChunk`). */
  | 'chunk_stored'
  /** Recording stopped: the stream ended, a limit or a stop, or a retry of a failed record (`end`). */
  | 'ended'
  /** A worker takes the ended capture to finalize it (`claimFinalize`). */
  | 'finalize_claimed'
  /** Finalize stored the archive (with the record's `archived`, in one commit) or found nothing to store (`markFinalized`); the chunks are deleted next. */
  | 'finalized'
  /** Finalize stored the archive of a capture whose stream may go on (with the record's `archived`): its chunks are kept. */
  | 'finalized_keeping'
  /** The stream went on: the kept capture records again from its next fragment (`reopen`, with the record's `continued`). */
  | 'reopened'
  /** The stream cannot go on any more (`letGo`): the kept chunks are deleted next. */
  | 'let_go';

/**
 * The whole capture lifecycle: the state each event leads to, per state. A pair missing here is
 * refused: the repository's statement matches no row and changes nothing (its WHERE clause says the
 * same, and points here). `finalized` is the end.
 */
export const CAPTURE_TRANSITIONS: Readonly<Record<CaptureState, Readonly<Partial<Record<CaptureEvent, CaptureState>>>>> = {
  capturing: { claimed: 'capturing', lease_renewed: 'capturing', stop_requested: 'capturing', chunk_stored: 'capturing', ended: 'ended' },
  ended: { lease_renewed: 'ended', finalize_claimed: 'ended', finalized: 'finalized', finalized_keeping: 'kept' },
  kept: { reopened: 'capturing', let_go: 'finalized' },
  finalized: {},
};

/** The state `event` leads to from `current`; null when the table refuses it. */
export function nextCaptureState(current: CaptureState, event: CaptureEvent): CaptureState | null {
  return CAPTURE_TRANSITIONS[current][event] ?? null;
}

/** Whether a capture in `state` still records: it takes segments and chunks, and may be claimed by a worker to record. */
export function isRecording(state: CaptureState): boolean {
  return nextCaptureState(state, 'chunk_stored') !== null;
}

/** Whether a capture in `state` is done with: no event leads out of it, and its chunks are deleted (or being deleted). */
export function isFinalized(state: CaptureState): boolean {
  return Object.keys(CAPTURE_TRANSITIONS[state]).length === 0;
}

/**
 * The job that moves a capture on from each state: the capture job records until the capture
 * ends, the finalize job finalizes an ended one; none past the end. The watchdog and the sweep
 * ask for this job when a capture's worker stopped answering.
 */
export const MOVED_ON_BY: Readonly<Record<CaptureState, 'capture' | 'finalize' | null>> = {
  capturing: 'capture',
  ended: 'finalize',
  kept: null,
  finalized: null,
};
