// Decisions: docs/decisions/0035-segments-on-disk-first.md
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Spool } from '../../core/capture/ports.js';
import type { SealedChunk } from './chunk-uploader.js';
import type { RecorderLimits } from './recorder-deps.js';

/** A segment's bytes are held up to this much before they are written: most segments take one write. */
const HOLD_BYTES = 1024 * 1024;

/**
 * Writes a capture's parts as a run of local chunks: a segment's bytes are written to the
 * current chunk as they arrive, past the end of the part, and become part of it (fsynced) on
 * `commit`; once the chunk holds `limit.chunkBytes` or more (or `limit.chunkSeconds` of media, if
 * not 0) at a segment boundary it is sealed and handed to `onSealed` (the uploader), and the part
 * goes on in a new chunk. So local disk holds
 * the chunk being written plus those waiting for upload, whatever the stream's length, and
 * memory at most `HOLD_BYTES` per capture, whatever the segment's size.
 */
export class ChunkWriter {
  part = 1;
  /** Bytes of the current part so far (committed). */
  offset = 0;
  private chunkStart = 0;
  /** Seconds of media in the current chunk. */
  private chunkSeconds = 0;
  private file: FileHandle | null = null;
  /** The segment being written: its bytes on disk past `offset`, and those held to be written with the next ones. */
  private written = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(
    private readonly spool: Spool,
    private readonly livestreamId: string,
    private readonly limit: Pick<RecorderLimits, 'chunkBytes' | 'chunkSeconds'>,
    private readonly onSealed: (chunk: SealedChunk) => void,
  ) {}

  /** Continues `part` at `offset`: appending to `appendTo` (which ends there), else in a new chunk. */
  async openAt(part: number, offset: number, appendTo: SealedChunk | null): Promise<void> {
    this.part = part;
    this.offset = offset;
    this.chunkStart = appendTo?.startOffset ?? offset;
    this.chunkSeconds = 0;
    const file = appendTo?.path ?? this.spool.chunkPath(this.livestreamId, part, offset);
    await mkdir(path.dirname(file), { recursive: true });
    this.file = await open(file, appendTo === null ? 'w' : 'r+');
  }

  /** Takes the next bytes of the segment being written at the end of the part. */
  async write(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    this.held.push(bytes);
    this.heldBytes += bytes.length;
    if (this.heldBytes >= HOLD_BYTES) await this.flush();
  }

  /** Drops what was written of the segment (a failed fetch), so it can be written again from its start. */
  async discard(): Promise<void> {
    this.held = [];
    this.heldBytes = 0;
    if (this.written === 0) return;
    this.written = 0;
    await this.openFile().truncate(this.offset - this.chunkStart);
  }

  /** Makes the segment written so far part of the part, on disk (fsync) before the caller records it; returns its length. */
  async commit(): Promise<number> {
    await this.flush();
    await this.openFile().datasync();
    const length = this.written;
    this.offset += length;
    this.written = 0;
    return length;
  }

  /** Writes `bytes` at the end of the part, durably, before the caller records them. */
  async append(bytes: Buffer): Promise<void> {
    await this.write(bytes);
    await this.commit();
  }

  /** Writes a part's initialization section, which must be its first bytes. */
  async writeInit(bytes: Buffer): Promise<void> {
    if (this.offset !== 0) throw new Error(`an initialization section can only start a part (part ${this.part} holds ${this.offset} bytes)`);
    await this.append(bytes);
  }

  /** Counts the segment just recorded (`seconds` long) and seals the current chunk when it is full; call only at a recorded segment boundary. */
  async sealIfFull(seconds: number): Promise<void> {
    this.chunkSeconds += seconds;
    const { chunkBytes: bytes, chunkSeconds: longest } = this.limit;
    if (this.offset - this.chunkStart >= bytes || (longest > 0 && this.chunkSeconds >= longest)) await this.seal();
  }

  /** Ends the current part (sealing its last chunk) and starts the next one. */
  async nextPart(): Promise<void> {
    await this.seal(false);
    this.part += 1;
    this.offset = 0;
    await this.openAt(this.part, 0, null);
  }

  /** Seals the current chunk (an empty one is just deleted) and, if `reopen`, starts another at the offset. */
  async seal(reopen = true): Promise<void> {
    if (this.file !== null) await this.discard(); // a segment cut short is not part of the chunk
    await this.file?.close();
    this.file = null;
    const sealed = {
      part: this.part,
      startOffset: this.chunkStart,
      endOffset: this.offset,
      path: this.spool.chunkPath(this.livestreamId, this.part, this.chunkStart),
    };
    if (sealed.endOffset > sealed.startOffset) this.onSealed(sealed);
    else await rm(sealed.path, { force: true });
    if (reopen) await this.openAt(this.part, this.offset, null);
  }

  /** Closes the current chunk as it is (a stopped capture: it stays on disk for a resumed one, which cuts what is past its record). */
  async close(): Promise<void> {
    await this.file?.close();
    this.file = null;
  }

  private async flush(): Promise<void> {
    if (this.heldBytes === 0) return;
    const [buffers, length] = [this.held, this.heldBytes];
    this.held = [];
    this.heldBytes = 0;
    // one system call for the segment's buffers as they arrived: no copy into one buffer
    const { bytesWritten } = await this.openFile().writev(buffers, this.offset + this.written - this.chunkStart);
    this.written += bytesWritten;
    if (bytesWritten !== length) throw new Error(`part ${this.part}: wrote ${bytesWritten} of ${length} bytes (disk full?)`);
  }

  private openFile(): FileHandle {
    if (this.file === null) throw new Error(`part ${this.part} has no open chunk`);
    return this.file;
  }
}
