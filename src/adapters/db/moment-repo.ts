// Decisions: docs/decisions/0130-moments.md
import type pg from 'pg';
import type { Moment } from '../../core/moments/moment.js';
import type { MomentRepo } from '../../core/moments/ports.js';
import type { MomentTexts } from '../../core/search/search.js';
import { insertBelowCap } from './pool.js';

interface MomentRow {
  id: string;
  livestream_id: string;
  at_seconds: number;
  text: string;
  author: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, livestream_id, at_seconds, text, author, created_at, updated_at';

function toMoment(row: MomentRow): Moment {
  return {
    id: row.id,
    livestreamId: row.livestream_id,
    atSeconds: row.at_seconds,
    text: row.text,
    author: row.author,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Moments in PostgreSQL (migration 0037); an insert's trigger writes the `moment.added` event. */
export function createMomentRepo(pool: pg.Pool): MomentRepo & MomentTexts {
  return {
    add(moment, most) {
      const cap = {
        lock: `kura_moments_of:${moment.livestreamId}`,
        count: 'select count(*)::int as n from moments where livestream_id = $1',
        params: [moment.livestreamId],
        limit: most,
      };
      return insertBelowCap(pool, cap, async (client) => {
        const { rows } = await client.query<MomentRow>(
          `insert into moments (id, livestream_id, at_seconds, text, author) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
          [moment.id, moment.livestreamId, moment.atSeconds, moment.text, moment.author],
        );
        return toMoment(rows[0] as MomentRow);
      });
    },

    async of(livestreamId) {
      const { rows } = await pool.query<MomentRow>(`select ${COLUMNS} from moments where livestream_id = $1 order by at_seconds, created_at`, [livestreamId]);
      return rows.map(toMoment);
    },

    async textsOf(livestreamIds) {
      const { rows } = await pool.query<{ livestream_id: string; at_seconds: number; text: string }>(
        'select livestream_id, at_seconds, text from moments where livestream_id = any($1::text[]) order by livestream_id, at_seconds, created_at',
        [livestreamIds],
      );
      const texts = new Map<string, Array<{ at: number; text: string }>>();
      for (const row of rows) texts.set(row.livestream_id, [...(texts.get(row.livestream_id) ?? []), { at: row.at_seconds, text: row.text }]);
      return texts;
    },

    async find(id) {
      const { rows } = await pool.query<MomentRow>(`select ${COLUMNS} from moments where id = $1`, [id]);
      return rows[0] === undefined ? null : toMoment(rows[0]);
    },

    async update(id, change) {
      const { rows } = await pool.query<MomentRow>(`update moments set at_seconds = $2, text = $3, updated_at = now() where id = $1 returning ${COLUMNS}`, [
        id,
        change.atSeconds,
        change.text,
      ]);
      return rows[0] === undefined ? null : toMoment(rows[0]);
    },

    async remove(id) {
      const { rowCount } = await pool.query('delete from moments where id = $1', [id]);
      return rowCount === 1;
    },
  };
}
