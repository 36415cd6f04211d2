// Research: docs/research/youtube-live-contract.md §3 (the fragments themselves)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** What `makeFragments` encodes: the codec family, the total length and the fragment length, in seconds. */
export interface FragmentOptions {
  /** `h264`: H.264 fMP4 video + AAC audio (mp4); `vp9`: VP9 WebM video + Opus WebM audio. */
  codecs: 'h264' | 'vp9';
  /** Total length; a whole number of fragments (`targetSeconds` divides it). */
  seconds: number;
  /** Length of each fragment, YouTube's `targetDurationSec` (1, 2 or 5); a keyframe starts each one. */
  targetSeconds: 1 | 2 | 5;
  /** Frames per second of both videos (default 30); fewer make a long material cheap. */
  fps?: number;
  /**
   * The bigger video's size and bitrate in bits per second (default 426x240, aiming at 200 kbit/s);
   * given, it is encoded at that constant bitrate (filler data), as a streamer's encoder sends it:
   * a test picture alone undershoots a bitrate by half.
   */
  video?: { width: number; height: number; bitrate: number };
}

/** One itag of the material, as googlevideo serves it and yt-dlp lists it. */
export interface FragmentRepresentation {
  itag: number;
  kind: 'video' | 'audio';
  /** The Content-Type its fragments are served with (the URL's `mime`). */
  mime: 'video/mp4' | 'audio/mp4' | 'video/webm' | 'audio/webm';
  /** As yt-dlp lists them: `avc1.4d400c`, `vp9`, `mp4a.40.2`, `opus`. */
  codecs: string;
  width: number | null;
  height: number | null;
  fps: number | null;
  /** The encoder's target, in bits per second (yt-dlp's `tbr` is this / 1000). */
  bitrate: number;
  /** The muxer's initialization segment (ftyp+moov, or EBML header+Tracks). */
  initPath: string;
  /** The media segments, in order: index N is the one of sq N. */
  chunkPaths: string[];
}

/** Fragment material: three itags (a small and a bigger video, one audio) cut at the same instants. */
export interface FragmentMaterial extends FragmentOptions {
  /** Fragments per itag: sq 0 … fragmentCount − 1. */
  fragmentCount: number;
  /** [small video, bigger video, audio]. */
  representations: FragmentRepresentation[];
}

const DEFAULT_FPS = 30;
const SMALL = { width: 256, height: 144, bitrate: 100_000 };
const DEFAULT_BIG = { width: 426, height: 240, bitrate: 200_000 };
/** The itags YouTube serves these sizes as (ytarchive's VideoLabelItags) and the audio itag of each family. */
const FAMILIES = {
  h264: { itags: [160, 133, 140], video: 'video/mp4', audio: 'audio/mp4', ext: 'm4s', audioCodec: 'mp4a.40.2', audioBitrate: 64_000 },
  vp9: { itags: [278, 242, 251], video: 'video/webm', audio: 'audio/webm', ext: 'webm', audioCodec: 'opus', audioBitrate: 96_000 },
} as const;

/**
 * Fragment material encoded by ffmpeg's DASH muxer (as fast as the machine can), made once per set
 * of options and kept under os.tmpdir() for every test process that asks again.
 */
export async function makeFragments(options: FragmentOptions): Promise<FragmentMaterial> {
  const { codecs, seconds, targetSeconds } = options;
  if (!Number.isInteger(seconds / targetSeconds)) throw new Error(`makeFragments: ${seconds} s is not a whole number of ${targetSeconds}-s fragments`);
  const args = fragmentEncoderArgs(options);
  const key = createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 12);
  const cache = path.join(os.tmpdir(), 'kura-youtube-fragments');
  const dir = path.join(cache, `${codecs}-${seconds}s-${targetSeconds}s-${key}`);
  if (!(await exists(dir))) await encodeInto(cache, dir, args);
  return readMaterial(dir, options);
}

/** The bytes googlevideo answers for `sq`: the initialization segment, then the sq's media segment (a self-contained file). */
export async function fragmentBytes(representation: FragmentRepresentation, sq: number): Promise<Buffer> {
  const chunk = representation.chunkPaths[sq];
  if (chunk === undefined) throw new Error(`itag ${representation.itag} has no fragment ${sq}`);
  return Buffer.concat([await readFile(representation.initPath), await readFile(chunk)]);
}

/** ffmpeg's arguments, run in the output folder: one test picture split in two sizes (shared timestamps) and a tone, as DASH. */
export function fragmentEncoderArgs({ codecs, seconds, targetSeconds, fps = DEFAULT_FPS, video: big }: FragmentOptions): string[] {
  const gop = String(fps * targetSeconds);
  const family = FAMILIES[codecs];
  const size = big ?? DEFAULT_BIG;
  const video =
    codecs === 'h264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-x264-params', 'cabac=1', '-pix_fmt', 'yuv420p', '-sc_threshold', '0']
      : ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1'];
  // only when a size is asked for, so the default material's arguments (and its cache key) stay as they were
  const rate = String(size.bitrate);
  const constant =
    big === undefined
      ? []
      : [...['-minrate:v:1', rate, '-maxrate:v:1', rate, '-bufsize:v:1', rate], ...(codecs === 'h264' ? ['-x264-params:v:1', 'cabac=1:nal-hrd=cbr'] : [])];
  // ffmpeg's default AAC coder takes longer over a pure tone than the whole video (8 s for 640 s)
  const audio = codecs === 'h264' ? ['-c:a', 'aac', '-aac_coder', 'fast', '-ar', '48000'] : ['-c:a', 'libopus'];
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostdin'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size.width}x${size.height}:rate=${fps}`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', String(seconds)],
    ...['-filter_complex', `[0:v]split=2[small][big];[small]scale=${SMALL.width}:${SMALL.height}[v0];[big]null[v1]`],
    ...['-map', '[v0]', '-map', '[v1]', '-map', '1:a'],
    ...video,
    ...['-b:v:0', String(SMALL.bitrate), '-b:v:1', String(size.bitrate), '-g', gop, '-keyint_min', gop],
    ...constant,
    ...['-force_key_frames', `expr:gte(t,n_forced*${targetSeconds})`],
    ...audio,
    ...['-b:a', String(family.audioBitrate), '-ac', '2'],
    ...['-f', 'dash', ...(codecs === 'vp9' ? ['-dash_segment_type', 'webm'] : [])],
    ...['-seg_duration', String(targetSeconds), '-use_template', '1', '-use_timeline', '0', '-single_file', '0'],
    ...['-init_seg_name', `init-$RepresentationID$.${family.ext}`, '-media_seg_name', `chunk-$RepresentationID$-$Number%05d$.${family.ext}`],
    ...['-adaptation_sets', 'id=0,streams=v id=1,streams=a', 'manifest.mpd'],
  ];
}

/** Encodes into a private folder, then renames it to `dir`; a maker that loses the race keeps the winner's. */
async function encodeInto(cache: string, dir: string, args: string[]): Promise<void> {
  await mkdir(cache, { recursive: true });
  const making = await mkdtemp(path.join(cache, `.making-${path.basename(dir)}-`));
  try {
    await runFfmpeg(args, making);
    await rename(making, dir).catch(async (error: NodeJS.ErrnoException) => {
      if (!['EEXIST', 'ENOTEMPTY'].includes(error.code ?? '') || !(await exists(dir))) throw error;
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
}

function runFfmpeg(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fragment ffmpeg exited ${code}: ${stderr}`))));
  });
}

async function readMaterial(dir: string, options: FragmentOptions): Promise<FragmentMaterial> {
  const family = FAMILIES[options.codecs];
  const fragmentCount = options.seconds / options.targetSeconds;
  const files = (await readdir(dir)).sort();
  const manifestCodecs = [...(await readFile(path.join(dir, 'manifest.mpd'), 'utf8')).matchAll(/codecs="([^"]+)"/g)].map((m) => m[1] ?? '');
  const representation = (id: number, fields: Omit<FragmentRepresentation, 'itag' | 'initPath' | 'chunkPaths'>): FragmentRepresentation => {
    // the audio may end in one more, tiny segment (AAC frames overrun the last instant): not served
    const chunks = files.filter((name) => name.startsWith(`chunk-${id}-`)).slice(0, fragmentCount);
    if (chunks.length < fragmentCount) throw new Error(`${dir}: representation ${id} has ${chunks.length} of ${fragmentCount} fragments`);
    const itag = family.itags[id] as number;
    return { itag, ...fields, initPath: path.join(dir, `init-${id}.${family.ext}`), chunkPaths: chunks.map((name) => path.join(dir, name)) };
  };
  // yt-dlp shows what YouTube's mimeType says: the full avc1 string, but plain `vp9`
  const videoCodecs = (id: number) => (options.codecs === 'h264' ? (manifestCodecs[id] ?? 'avc1') : 'vp9');
  const video = (id: number, size: { width: number; height: number; bitrate: number }) =>
    representation(id, {
      kind: 'video',
      mime: family.video,
      codecs: videoCodecs(id),
      width: size.width,
      height: size.height,
      fps: options.fps ?? DEFAULT_FPS,
      bitrate: size.bitrate,
    });
  return {
    ...options,
    fragmentCount,
    representations: [
      video(0, SMALL),
      video(1, options.video ?? DEFAULT_BIG),
      representation(2, { kind: 'audio', mime: family.audio, codecs: family.audioCodec, width: null, height: null, fps: null, bitrate: family.audioBitrate }),
    ],
  };
}

const exists = (file: string): Promise<boolean> =>
  stat(file).then(
    () => true,
    () => false,
  );
