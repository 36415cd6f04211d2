import type { Moment } from './moment.js';

/** Where moments are kept (PostgreSQL); adding one also tells the webhooks (`moment.added`). */
export interface MomentRepo {
  /** Adds a moment unless its record already holds `most`; false when it does. */
  add(moment: Omit<Moment, 'createdAt' | 'updatedAt'>, most: number): Promise<Moment | null>;
  /** A record's moments, by time. */
  of(livestreamId: string): Promise<Moment[]>;
  find(id: string): Promise<Moment | null>;
  update(id: string, change: { atSeconds: number; text: string }): Promise<Moment | null>;
  remove(id: string): Promise<boolean>;
}
