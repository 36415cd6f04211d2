// Decisions: docs/decisions/0061-atom-feeds.md
import type { Livestream } from '../../core/records/livestream.js';
import { presentRecord } from '../livestreams/record.presenter.js';
import { duration } from '../web/open-graph.js';
import type { AtomEntry } from './atom.js';
import { utcMinute } from '../../core/records/record-names.js';

const SIZE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** The archive page of a record, which entries link to and are named by. */
export function archivePageUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/archive/${encodeURIComponent(id)}`;
}

export function channelPageUrl(publicUrl: string, channelId: string): string {
  return `${publicUrl}/channel/${encodeURIComponent(channelId)}`;
}

/**
 * A finished record as an entry of the archives feed: its archive page, the video download as
 * `/api/history` gives it (enclosure, video/mp4, its size), the channel as author.
 */
export function archiveEntry(livestream: Livestream, publicUrl: string): AtomEntry {
  const record = presentRecord(livestream, publicUrl, 'public');
  const facts = [record.channelName || record.channelId, `streamed ${utcMinute(livestream.startedAt ?? livestream.scheduledStart)} UTC`];
  if (record.length !== undefined) facts.push(duration(record.length));
  if (record.fileSizeBytes !== undefined) facts.push(decimalSize(record.fileSizeBytes));
  return {
    ...commonFields(livestream, publicUrl, record.thumbnail),
    id: archivePageUrl(publicUrl, livestream.id),
    published: livestream.endedAt ?? livestream.scheduledStart,
    summary: facts.join(' · '),
    enclosure: record.downloadUrl === undefined ? null : { url: record.downloadUrl, length: record.fileSizeBytes ?? 0, type: 'video/mp4' },
  };
}

/**
 * An upcoming or live record as an entry of the queue feed: its own id (the same record's
 * archive entry is another item), the scheduled start, and whether it is live.
 */
export function queueEntry(livestream: Livestream, publicUrl: string): AtomEntry {
  const record = presentRecord(livestream, publicUrl, 'public');
  const when =
    livestream.status === 'live'
      ? `live since ${utcMinute(livestream.startedAt ?? livestream.scheduledStart)} UTC`
      : `scheduled for ${utcMinute(livestream.scheduledStart)} UTC`;
  return {
    ...commonFields(livestream, publicUrl, record.thumbnail),
    id: `${archivePageUrl(publicUrl, livestream.id)}#queued`,
    published: livestream.createdAt,
    summary: `${record.channelName || record.channelId} · ${when}`,
    enclosure: null,
  };
}

function commonFields(livestream: Livestream, publicUrl: string, thumbnail: string): Pick<AtomEntry, 'title' | 'link' | 'updated' | 'author' | 'thumbnail'> {
  return {
    title: livestream.title || livestream.id,
    link: archivePageUrl(publicUrl, livestream.id),
    updated: livestream.updatedAt,
    author: { name: livestream.channelName || livestream.channelId, uri: channelPageUrl(publicUrl, livestream.channelId) },
    thumbnail: thumbnail === '' ? null : thumbnail,
  };
}

/** Decimal units, as the UI and the storage bill count them: `1.2 GB`. */
function decimalSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < SIZE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 || value >= 100 ? 0 : 1)} ${SIZE_UNITS[unit]}`;
}
