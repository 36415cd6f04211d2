import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Spool } from '../../core/capture/ports.js';
import type { SealedChunk } from './chunk-uploader.js';

/**
 * Writes a capture's parts as a run of local chunk files: bytes are appended (and fsynced) to the
 * current chunk; once it holds `chunkBytes` or more at a segment boundary it is sealed and handed
 * to `onSealed` (the uploader), and the part goes on in a new chunk. So local disk holds the
 * chunk being written plus those waiting for upload, whatever the stream's length.
 */
export class ChunkWriter {
  part = 1;
  /** Bytes of the current part so far. */
  offset = 0;
  private chunkStart = 0;
  private file: FileHandle | null = null;

  constructor(
    private readonly spool: Spool,
    private readonly livestreamId: string,
    private readonly chunkBytes: number,
    private readonly onSealed: (chunk: SealedChunk) => void,
  ) {}

  /** Continues `part` at `offset`: appending to `appendTo` (which ends there), else in a new chunk. */
  async openAt(part: number, offset: number, appendTo: SealedChunk | null): Promise<void> {
    this.part = part;
    this.offset = offset;
    this.chunkStart = appendTo?.startOffset ?? offset;
    const file = appendTo?.path ?? this.spool.chunkPath(this.livestreamId, part, offset);
    await mkdir(path.dirname(file), { recursive: true });
    this.file = await open(file, appendTo === null ? 'w' : 'r+');
  }

  /** Writes `bytes` at the end of the part, durably, before the caller records them. */
  async append(bytes: Buffer): Promise<void> {
    await this.writeAt(bytes, this.offset);
    this.offset += bytes.length;
  }

  /** Writes a part's initialization section, which must be its first bytes. */
  async writeInit(bytes: Buffer): Promise<void> {
    if (this.offset !== 0) throw new Error(`an initialization section can only start a part (part ${this.part} holds ${this.offset} bytes)`);
    await this.append(bytes);
  }

  /** Seals the current chunk when it is full; call only at a recorded segment boundary. */
  async sealIfFull(): Promise<void> {
    if (this.offset - this.chunkStart >= this.chunkBytes) await this.seal();
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

  /** Closes the current chunk as it is (a stopped capture: it stays on disk for a resumed one). */
  async close(): Promise<void> {
    await this.file?.close();
    this.file = null;
  }

  private async writeAt(bytes: Buffer, partOffset: number): Promise<void> {
    const file = this.file;
    if (file === null) throw new Error(`part ${this.part} has no open chunk`);
    await file.write(bytes, 0, bytes.length, partOffset - this.chunkStart);
    await file.sync(); // on disk before PostgreSQL says it is stored
  }
}
