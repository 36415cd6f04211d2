import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { HeadLastWriter } from '../../core/ports.js';
import { faststartLayout, readAt } from './mp4-faststart.js';
import { punchHole } from './hole-punch.js';

const STEP_MS = 100;
const BLOCK = 4096;
/** Media is read from the work file, and its blocks freed, in steps of half the backlog (64 KiB to 4 MiB). */
const stepBytes = (backlogBytes: number) => Math.min(4 * 1024 * 1024, Math.max(64 * 1024, Math.floor(backlogBytes / 2 / BLOCK) * BLOCK));

/**
 * Follows the MP4 ffmpeg writes (without `+faststart`: `ftyp`, `free`, `mdat` header, media,
 * then the `moov`) and hands its media to `writer` as it appears, freeing the disk blocks behind
 * it — so the work file's allocated size stays within about twice `backlogBytes` whatever the
 * archive's. Once ffmpeg has exited, `finish` sends the rest and returns the faststart head.
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
  private punched = 0;
  private canPunch = true;
  private trailerBegun = false;
  private stopped = false;
  private waiters: Array<() => void> = [];
  /** Ends the follow loop's pause early: someone waits for room. */
  private kick: () => void = () => undefined;

  constructor(
    private readonly path: string,
    private readonly writer: HeadLastWriter,
    private readonly backlogBytes: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Resolves once ffmpeg's output not yet handed on is within the backlog (input backpressure). */
  async waitForRoom(): Promise<void> {
    // the size as of now: ffmpeg writes tens of MB between two steps of the loop
    const file = await this.open();
    if (file !== null) this.written = Math.max(this.written, (await file.stat()).size);
    if (this.stopped || this.trailerBegun || this.written - this.sent <= this.backlogBytes) return;
    await new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.kick();
    });
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
        await Promise.race([delay(STEP_MS), ended, new Promise<void>((resolve) => (this.kick = resolve))]);
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
    await this.file?.close();
    this.file = null;
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
      const piece = await readAt(file, this.sent, Math.min(stepBytes(this.backlogBytes), end - this.sent));
      if (unchanged !== undefined && !(await readAt(file, 0, unchanged.length)).equals(unchanged)) {
        this.trailerBegun = true; // the range may hold moov bytes: finish() knows where the media ends
        return;
      }
      await this.writer.writeMedia(piece);
      this.sent += piece.length;
      await this.punchBehind();
      this.wake();
    }
  }

  /** Finds where the media starts (after the `mdat` box header); false until ffmpeg wrote that far. */
  private async readHeader(file: FileHandle): Promise<boolean> {
    const start = await readAt(file, 0, Math.min(this.written, 64 * 1024));
    for (let offset = 0; offset + 8 <= start.length; ) {
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
    if (!this.canPunch || to - this.punched < stepBytes(this.backlogBytes)) return;
    this.canPunch = await punchHole(this.path, this.punched, to - this.punched);
    if (!this.canPunch) this.log('the spool filesystem cannot free blocks of a file being written (fallocate --punch-hole): finalize uses disk for the whole archive');
    this.punched = to;
  }

  private async open(): Promise<FileHandle | null> {
    this.file ??= await open(this.path, 'r').catch(() => null);
    return this.file;
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
