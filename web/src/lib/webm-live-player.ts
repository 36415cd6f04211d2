// Decisions: docs/decisions/0071-watching-a-capture-of-fragments.md
import { loadTrack, TRACKS, type Listed, type Track } from './track-playlists';

/**
 * Plays a capture of a source's fragments whose tracks HLS players cannot carry (YouTube's VP9 and
 * Opus come as WebM) with Media Source Extensions, as YouTube's own player does: each track's
 * media playlist (`live/{track}.m3u8`) lists its fragments; the player appends a track's
 * initialization section, then its fragments in order from the position watched, and keeps going
 * while the capture records. The fragments carry their own timestamps, so the two tracks line up.
 */

interface TrackState {
  buffer: SourceBuffer;
  fragments: Listed[];
  ended: boolean;
  /** The index of the next fragment to append. */
  next: number;
  /** The section the last fragment appended plays behind. */
  appendedInit: string | null;
}

/** How far ahead of the position the player fetches, and how much it keeps behind it. */
const AHEAD_SECONDS = 30;
const BEHIND_SECONDS = 90;
/** How close to a hole the position is at its edge. */
const HOLE_EDGE_SECONDS = 0.2;
/** The live position a viewer starts at: this many target durations before what is recorded ends (as HLS players do). */
const EDGE_TARGETS = 3;

export class WebmLivePlayer {
  private readonly source = new MediaSource();
  private readonly tracks = new Map<Track, TrackState>();
  private stopped = false;
  /** Media time minus playlist time, measured once the first fragment is appended. */
  private offset = 0;
  private wake: (() => void) | null = null;
  /** Where the viewer is on the media timeline: the live edge until the first fragment is appended and the element sent there. */
  private position: () => number = () => Number.POSITIVE_INFINITY;
  /** Where the viewer asked to begin, in seconds of the playlist. */
  private from = Number.POSITIVE_INFINITY;
  /** Seconds of each fragment, as the video's playlist says. */
  targetSeconds = 2;

  /**
   * Plays `base`'s track playlists in `video` (`types`: see mseTypes). `onStale` is called when
   * the capture seems over (a playlist or fragment answers 410 or 409): the page re-reads the record.
   */
  constructor(
    private readonly video: HTMLVideoElement,
    private readonly base: URL,
    private readonly types: Record<Track, string>,
    private readonly onStale: () => void,
  ) {}

  static isSupported(types: Record<Track, string>): boolean {
    return typeof MediaSource !== 'undefined' && TRACKS.every((track) => MediaSource.isTypeSupported(types[track]));
  }

  /** Starts playing from the live edge, or from `from` (seconds of the recording) when that is before it; what is recorded before stays seekable. */
  start(from = Number.POSITIVE_INFINITY): void {
    this.from = from;
    this.video.src = URL.createObjectURL(this.source);
    this.video.addEventListener('seeking', this.onSeeking);
    this.video.addEventListener('timeupdate', this.onProgress);
    this.video.addEventListener('waiting', this.onProgress);
    this.source.addEventListener('sourceopen', () => void this.run().catch(() => this.onStale()), { once: true });
  }

  stop(): void {
    this.stopped = true;
    this.video.removeEventListener('seeking', this.onSeeking);
    this.video.removeEventListener('timeupdate', this.onProgress);
    this.video.removeEventListener('waiting', this.onProgress);
    this.wakeUp();
    URL.revokeObjectURL(this.video.src);
    this.video.removeAttribute('src');
    this.video.load();
  }

  /** The position a viewer going live is sent to. */
  get liveEdge(): number | null {
    const video = this.tracks.get('video');
    const last = video?.fragments.at(-1);
    return last === undefined ? null : Math.max((video?.fragments[0]?.start ?? 0) + this.offset, last.end + this.offset - EDGE_TARGETS * this.targetSeconds);
  }

  private readonly onSeeking = () => {
    // a position outside what is buffered: each track goes on from the fragment there
    if (this.buffered(this.video.currentTime)) return;
    const at = this.video.currentTime - this.offset;
    for (const state of this.tracks.values()) {
      const index = state.fragments.findIndex((fragment) => fragment.end > at);
      state.next = index === -1 ? state.fragments.length : index;
    }
    this.wakeUp();
  };

  private readonly onProgress = () => {
    this.overHole();
    this.wakeUp();
  };

  /**
   * A lost fragment leaves a hole in what is buffered: at its edge (the element stops up to a frame
   * before what it says is buffered ends) the position jumps to where the media goes on.
   */
  private overHole() {
    const { buffered, currentTime } = this.video;
    const edge = currentTime + HOLE_EDGE_SECONDS;
    if (this.buffered(edge) || !this.lostAt(edge)) return;
    for (let i = 0; i < buffered.length; i++) {
      if (buffered.start(i) > currentTime) {
        this.video.currentTime = buffered.start(i) + 0.01;
        return;
      }
    }
  }

  /** Whether a track's fragment at `time` was lost. */
  private lostAt(time: number): boolean {
    const at = time - this.offset;
    return [...this.tracks.values()].some((state) => state.fragments.find((fragment) => fragment.start <= at && at < fragment.end)?.url === null);
  }

  private buffered(time: number): boolean {
    const { buffered } = this.video;
    for (let i = 0; i < buffered.length; i++) if (buffered.start(i) <= time && time < buffered.end(i)) return true;
    return false;
  }

  private wakeUp() {
    this.wake?.();
    this.wake = null;
  }

  /** Resolves after `seconds`, or sooner when the position moves or the player stops. */
  private sleep(seconds: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeUp(), seconds * 1000);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    this.source.duration = Infinity;
    for (const track of TRACKS) {
      const loaded = await this.reload(track);
      if (loaded === null) return this.onStale();
    }
    const video = this.tracks.get('video') as TrackState;
    const edge = Math.min(this.from, (video.fragments.at(-1)?.end ?? 0) - EDGE_TARGETS * this.targetSeconds);
    for (const state of this.tracks.values())
      state.next = Math.max(
        0,
        state.fragments.findIndex((fragment) => fragment.end > edge),
      );
    this.position = () => edge;
    let first = true;
    let reloadedAt = performance.now();
    while (!this.stopped) {
      let appended = false;
      for (const state of this.tracks.values()) appended = (await this.appendNext(state)) || appended;
      if (first && video.buffer.buffered.length > 0) {
        first = false;
        const fragment = video.fragments[Math.max(0, video.next - 1)] as Listed;
        this.offset = video.buffer.buffered.start(0) - fragment.start;
        this.video.currentTime = video.buffer.buffered.start(0);
        this.position = () => this.video.currentTime;
      }
      this.updateSeekable();
      this.overHole();
      const allEnded = [...this.tracks.values()].every((state) => state.ended && state.next >= state.fragments.length);
      if (allEnded) {
        if (this.source.readyState === 'open' && !this.updating()) this.source.endOfStream();
        await this.sleep(this.targetSeconds);
        continue;
      }
      const due = performance.now() - reloadedAt >= this.targetSeconds * 1000;
      if (due) {
        reloadedAt = performance.now();
        for (const track of TRACKS) if (!(this.tracks.get(track) as TrackState).ended) await this.reload(track);
      } else if (!appended) await this.sleep(this.targetSeconds);
    }
  }

  /** Reads a track's playlist again (creating its buffer the first time); null when it cannot be played. */
  private async reload(track: Track): Promise<TrackState | null> {
    const loaded = await loadTrack(this.base, track);
    if (loaded === null || loaded.status !== 200) {
      if (loaded?.status === 410 || loaded?.status === 409) this.onStale();
      return this.tracks.get(track) ?? null;
    }
    let state = this.tracks.get(track);
    if (state === undefined) {
      const buffer = this.source.addSourceBuffer(this.types[track]);
      state = { buffer, fragments: [], ended: false, next: 0, appendedInit: null };
      this.tracks.set(track, state);
    }
    state.fragments = loaded.fragments;
    state.ended = loaded.ended;
    if (track === 'video' && loaded.target > 0) this.targetSeconds = loaded.target;
    return state;
  }

  /** Appends the track's next fragment (behind its section) unless enough is buffered ahead; whether it did. */
  private async appendNext(state: TrackState): Promise<boolean> {
    const fragment = state.fragments[state.next];
    if (fragment === undefined || fragment.start + this.offset > this.position() + AHEAD_SECONDS) return false;
    state.next++;
    if (fragment.url === null) return true; // lost: nothing to fetch
    await this.evict(state.buffer);
    if (state.appendedInit !== fragment.init) {
      const init = await this.fetchBytes(fragment.init);
      if (init === null) return false;
      await append(state.buffer, init);
      state.appendedInit = fragment.init;
    }
    const bytes = await this.fetchBytes(fragment.url);
    if (bytes !== null && !this.stopped) await append(state.buffer, bytes);
    return true;
  }

  private async fetchBytes(url: string): Promise<ArrayBuffer | null> {
    const response = await fetch(url, { credentials: 'same-origin' }).catch(() => null);
    if (response?.status === 410) this.onStale();
    return response?.ok === true ? response.arrayBuffer() : null;
  }

  /** Frees what lies well behind the position, so a long watch stays within the browser's buffer quota. */
  private async evict(buffer: SourceBuffer): Promise<void> {
    const before = this.video.currentTime - BEHIND_SECONDS;
    if (buffer.buffered.length > 0 && buffer.buffered.start(0) < before) {
      buffer.remove(0, before);
      await updated(buffer);
    }
  }

  private updateSeekable() {
    const video = this.tracks.get('video');
    const first = video?.fragments[0];
    const last = video?.fragments.at(-1);
    if (first === undefined || last === undefined || this.source.readyState !== 'open' || this.updating()) return;
    this.source.setLiveSeekableRange(first.start + this.offset, last.end + this.offset);
  }

  private updating(): boolean {
    return [...this.tracks.values()].some((state) => state.buffer.updating);
  }
}

function updated(buffer: SourceBuffer): Promise<void> {
  return new Promise((resolve, reject) => {
    buffer.addEventListener('updateend', () => resolve(), { once: true });
    buffer.addEventListener('error', () => reject(new Error('the browser refused a fragment')), { once: true });
  });
}

async function append(buffer: SourceBuffer, bytes: ArrayBuffer): Promise<void> {
  const done = updated(buffer);
  buffer.appendBuffer(bytes);
  await done;
}
