/** One adaptive format of a broadcast, as the yt-dlp stand-in lists it (`tbr` in kbit/s). */
export interface AdaptiveFormatState {
  itag: number;
  mime: 'video/mp4' | 'audio/mp4' | 'video/webm' | 'audio/webm';
  codecs: string;
  width: number | null;
  height: number | null;
  fps: number | null;
  tbr: number;
}

/** What the yt-dlp stand-in needs to list a broadcast's adaptive formats (the video state's `adaptive`). */
export interface AdaptiveState {
  origin: string;
  videoId: string;
  /** The HMAC key of the URLs' `sig`. */
  sigSecret: string;
  targetSeconds: number;
  expireInSeconds: number;
  formats: AdaptiveFormatState[];
}

export function googlevideoSig(secret: string, videoId: string, itag: number | string, expire: number | string): string;
export function googlevideoUrl(adaptive: AdaptiveState, itag: number | string, now?: number): string;
