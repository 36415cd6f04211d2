/** Every object key Kura stores, built here and nowhere else. */
export const objectKeys = {
  video: (id: string) => `archives/${id}/${id}.mp4`,
  log: (id: string) => `archives/${id}/${id}.log`,
  thumbnail: (id: string) => `archives/${id}/${id}.jpg`,
};

export type DownloadType = 'video' | 'log' | 'thumbnail';

export const CONTENT_TYPES: Record<DownloadType, string> = {
  video: 'video/mp4',
  log: 'text/plain; charset=utf-8',
  thumbnail: 'image/jpeg',
};
