import { fstatSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { HeadLastWriter } from '../../core/archive/ports.js';
import { faststartLayout, readAt } from './mp4-faststart.js';
import { HolePuncher } from './hole-punch.js';

const STEP_MS = 100;
/** How often the output is looked at while ffmpeg's input is held back: only media handed on lets more input go. */
const HELD_STEP_MS = 2;
/** Held this long with no media handed on, the input count is checked against the socket buffers. */
const RECOUNT_MS = 20;
const BLOCK = 4096;
/** Media is read from the work file in steps of half the backlog (64 KiB to 4 MiB). */
const stepBytes = (backlogBytes: number) => Math.min(4 * 1024 * 1024, Math.max(64 * 1024, Math.floor(backlogBytes / 2 / BLOCK) * BLOCK));
/** Blocks are freed in runs of a step or a quarter of the backlog, whichever is larger: each run costs a process (a small one). */
const punchBytes = (backlogBytes: number) => Math.max(stepBytes(backlogBytes), Math.floor(backlogBytes / 4 / BLOCK) * BLOCK);

/**
 * Follows the MP4 ffmpeg writes (without `+faststart`: `ftyp`, `free`, `mdat` header, media,
 * then the `moov`) and hands its media to `writer` as it appears, freeing the disk blocks behind
 * it — so the work file's allocated size stays within about twice `backlogBytes` whatever the
 * archive's. Once ffmpeg has exited, `finish` sends the rest and returns the faststart head.
 *
 * ffmpeg's input is held back (`waitForRoom`) while what it was given and has not handed on yet
 * exceeds the backlog: its output not yet handed on, and its input not yet seen in that output.
 * Counting the output alone let the loopback socket buffers fill (the kernel sizes them, up to
 * megabytes) whenever ffmpeg fell behind for a moment; it then wrote them out at once, past the
 * backlog. The input is counted as given less output written, which overcounts (ffmpeg strips the
 * MPEG-TS packaging, and reads parts' beginnings and ends to probe them without output). So the
 * count starts again at each request ffmpeg makes (it reads no more of earlier responses), and
 * when it holds ffmpeg back with nothing handed on for a while, it is set to what the socket
 * buffers really hold (`inputQueued`).
 *
 * Which bytes are media: ffmpeg's mov muxer writes the `mdat` header with size 0 (a placeholder),
 * then the media in order and, at the end, first seeks back to patch the `mdat` size and only then
 * writes the `moov`. So a range read while the header still holds the placeholder holds media
 * only — the header is read again after the range. A header found patched at first sight means
 * ffmpeg is past its media already: then everything is sent once it has exited.
 */
export class Mp4OutputFollower {
  private file: FileHandle | null = null;
  /** The bytes before the media, as ffmpeg first wrote them. */
  private header: Buffer | null = null;
  /** File offset up to which media went to the writer. */
  private sent = 0;
  private written = 0;
  /** What media is read into before it is handed on. */
  private buffer: Buffer | null = null;
  private punched = 0;
  private canPunch = true;
  private puncher: HolePuncher | null = null;
  private trailerBegun = false;
  private stopped = false;
  private waiters: Array<() => void> = [];
  /** Ends the follow loop's pause early: someone waits for room. */
  private kick: () => void = () => undefined;
  private opening: Promise<FileHandle | null> | null = null;
  /** Input bytes given to ffmpeg. */
  private given = 0;
  /** Set by a recount so that `given - written + recounted` is the input ffmpeg has not read. */
  private recounted = 0;
  private recounting: Promise<void> | null = null;
  /** ffmpeg moved on to a new response since the count was last set. */
  private inputRestarted = false;
  private queueUnknownLogged = false;

  /** `inputQueued`: bytes given to ffmpeg that it has not read (PartServer.queued); null where unknown. */
  constructor(
    private readonly path: string,
    private readonly writer: HeadLastWriter,
    private readonly backlogBytes: number,
    private readonly log: (line: string) => void,
    private readonly inputQueued: () => Promise<number | null> = async () => null,
  ) {}

  /** ffmpeg reads its input from a new response: what it was given before and has not read, it never will. */
  restartInput(): void {
    this.inputRestarted = true;
  }

  /** Resolves once `bytes` more input may go to ffmpeg, and counts them as given (input backpressure). */
  async waitForRoom(bytes: number): Promise<void> {
    // near the backlog, the size as of now, not of the loop's last step (ffmpeg writes tens of MB
    // between two); below half of it, an older size cannot hide enough to pass it
    if (this.inputRestarted || this.ahead() + bytes > this.backlogBytes / 2) await this.look();
    if (this.inputRestarted) {
      this.inputRestarted = false;
      this.recounted = this.written - this.given;
    }
    while (!this.stopped && !this.trailerBegun && this.ahead() > this.backlogBytes) {
      const handedOn = await this.handedOnWithin(RECOUNT_MS);
      await this.look();
      if (!handedOn && this.written - this.sent <= this.backlogBytes) await this.recount();
    }
    this.given += bytes;
  }

  /** Follows the file until `exited` settles; rejects when handing the media on fails. */
  async follow(exited: Promise<unknown>): Promise<void> {
    let running = true;
    const ended = exited.then(
      () => (running = false),
      () => (running = false),
    );
    try {
      while (running) {
        await this.step();
        if (this.waiters.length > 0 && this.sent < this.written) continue; // held back: send on at once
        const pause = this.waiters.length > 0 ? HELD_STEP_MS : STEP_MS;
        await Promise.race([delay(pause), ended, new Promise<void>((resolve) => (this.kick = resolve))]);
      }
    } finally {
      this.stopped = true;
      this.wake();
    }
  }

  /** After ffmpeg has exited: hands on the rest of the media and returns the faststart head. */
  async finish(): Promise<Buffer> {
    const file = await this.open();
    if (file === null) throw new Error('ffmpeg wrote no output');
    const layout = await faststartLayout(file);
    if (this.header !== null && layout.media.offset !== this.header.length) {
      throw new Error(`the media starts at byte ${layout.media.offset} of ffmpeg's output, not ${this.header.length} as first written`);
    }
    const mediaEnd = layout.media.offset + layout.media.length;
    if (this.header === null) this.startMediaAt(layout.media.offset); // ffmpeg was done before a first look
    if (this.sent > mediaEnd) throw new Error(`handed on ${this.sent - mediaEnd} bytes past the media`);
    await this.send(file, mediaEnd);
    return layout.head;
  }

  async close(): Promise<void> {
    this.puncher?.close();
    await this.opening;
    await this.file?.close();
    this.file = null;
    this.opening = null;
  }

  /** What ffmpeg was given and has not handed on: output not handed on, input not yet seen in it. */
  private ahead(): number {
    return this.written - this.sent + Math.max(0, this.given - this.written + this.recounted);
  }

  /** Sets the input count to what the socket buffers hold; unknown, ffmpeg is taken to have read all. */
  private recount(): Promise<void> {
    this.recounting ??= (async () => {
      const given = this.given;
      const queued = await this.inputQueued();
      await this.look(); // after the buffers: output of bytes read meanwhile is then not counted twice
      this.recounted = (queued ?? 0) + this.written - given;
      if (queued === null && !this.queueUnknownLogged) {
        this.queueUnknownLogged = true;
        this.log(
          "the loopback socket buffers cannot be read (/proc/net/tcp): ffmpeg's input held in them is not counted, the work file may outgrow the backlog",
        );
      }
    })().finally(() => (this.recounting = null));
    return this.recounting;
  }

  /** Resolves true once media is handed on (or following stops), false after `ms` without. */
  private handedOnWithin(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const woken = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== woken);
        resolve(false);
      }, ms);
      this.waiters.push(woken);
      this.kick();
    });
  }

  private async look(): Promise<void> {
    const file = await this.open();
    // synchronous: an fstat of an open file reads no disk, and through the thread pool it costs
    // ten times the CPU, on every piece of input while ffmpeg runs ahead
    if (file !== null) this.written = Math.max(this.written, fstatSync(file.fd).size);
  }

  private async step(): Promise<void> {
    const file = await this.open();
    if (file === null) return; // not created yet
    this.written = (await file.stat()).size;
    if (this.header === null && !(await this.readHeader(file))) return;
    if (!this.trailerBegun) await this.send(file, this.written, this.header as Buffer);
  }

  /** Hands bytes from `sent` to `end` on; with `unchanged`, only while the header still reads so. */
  private async send(file: FileHandle, end: number, unchanged?: Buffer): Promise<void> {
    while (this.sent < end) {
      this.buffer ??= Buffer.allocUnsafe(stepBytes(this.backlogBytes)); // one for the whole run: the writer copies what it keeps
      const { bytesRead } = await file.read(this.buffer, 0, Math.min(this.buffer.length, end - this.sent), this.sent);
      if (bytesRead === 0) throw new Error(`ffmpeg's output ends at byte ${this.sent}, before ${end}`);
      const piece = this.buffer.subarray(0, bytesRead);
      if (unchanged !== undefined && !(await readAt(file, 0, unchanged.length)).equals(unchanged)) {
        this.trailerBegun = true; // the range may hold moov bytes: finish() knows where the media ends
        return;
      }
      await this.writer.writeMedia(piece);
      this.sent += piece.length;
      this.wake(); // ffmpeg goes on while the blocks behind are freed (then lagging `sent` by two steps at most)
      await this.punchBehind();
    }
  }

  /** Finds where the media starts (after the `mdat` box header); false until ffmpeg wrote that far. */
  private async readHeader(file: FileHandle): Promise<boolean> {
    const start = await readAt(file, 0, Math.min(this.written, 64 * 1024));
    for (let offset = 0; offset + 8 <= start.length;) {
      const size = start.readUInt32BE(offset);
      const type = start.toString('latin1', offset + 4, offset + 8);
      if (type === 'mdat') {
        const mediaStart = offset + (size === 1 ? 16 : 8);
        if (mediaStart > start.length) return false;
        this.header = Buffer.from(start.subarray(0, mediaStart));
        this.trailerBegun = size !== 0; // the placeholder is patched already: ffmpeg is writing its moov
        this.startMediaAt(mediaStart);
        return true;
      }
      if (size < 8) throw new Error(`unexpected box ${JSON.stringify(type)} at byte ${offset} of ffmpeg's output`);
      offset += size;
    }
    if (this.written > 64 * 1024) throw new Error("ffmpeg's output has no mdat box in its first 64 KiB");
    return false;
  }

  /** Media is sent from `offset` on; blocks are freed only past the header, which ffprobe reads at the end. */
  private startMediaAt(offset: number): void {
    this.sent = offset;
    this.punched = Math.ceil(offset / BLOCK) * BLOCK;
  }

  private async punchBehind(): Promise<void> {
    const to = Math.floor(this.sent / BLOCK) * BLOCK;
    if (!this.canPunch || to - this.punched < punchBytes(this.backlogBytes)) return;
    this.puncher ??= new HolePuncher(this.path);
    this.canPunch = await this.puncher.punch(this.punched, to - this.punched);
    if (!this.canPunch)
      this.log('the spool filesystem cannot free blocks of a file being written (fallocate --punch-hole): finalize uses disk for the whole archive');
    this.punched = to;
  }

  /** One handle, however many callers ask at once; none until ffmpeg has created the file. */
  private open(): Promise<FileHandle | null> {
    this.opening ??= open(this.path, 'r').then(
      (file) => (this.file = file),
      () => {
        this.opening = null;
        return null;
      },
    );
    return this.opening;
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
