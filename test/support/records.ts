import pg from 'pg';

type Row = { status: string; failure_reason: string | null; file_size_bytes: number | null; length_seconds: number | null };

/**
 * Resolves with a record's row once `accept` takes it. Event-driven: Kura's triggers NOTIFY every
 * committed change to records, and the row is re-read at each notification.
 */
export function waitForRecord(
  databaseUrl: string,
  id: string,
  accept: (row: { status: string; failure_reason: string | null }) => boolean,
  timeoutMs = 180_000,
): Promise<Row> {
  return whenRecordsChange(databaseUrl, `record ${id} did not reach the expected state in ${timeoutMs} ms`, timeoutMs, async (client) => {
    const { rows } = await client.query<Row>('select * from livestreams where id = $1', [id]);
    return rows[0] && accept(rows[0]) ? rows[0] : null;
  });
}

/** Resolves once record `id` is gone (a takedown deleted it). Event-driven like waitForRecord. */
export function waitForRecordGone(databaseUrl: string, id: string, timeoutMs = 60_000): Promise<true> {
  return whenRecordsChange(databaseUrl, `record ${id} was still there after ${timeoutMs} ms`, timeoutMs, async (client) => {
    const { rows } = await client.query('select 1 from livestreams where id = $1', [id]);
    return rows.length === 0 ? true : null;
  });
}

/**
 * Resolves with the records a follow queued (submitter `follow/{followId}`, oldest first) once
 * there are `count` of them. Event-driven like waitForRecord.
 */
export function waitForFollowRecords(
  databaseUrl: string,
  followId: string,
  count: number,
  timeoutMs = 180_000,
): Promise<Array<{ id: string; status: string }>> {
  return whenRecordsChange(databaseUrl, `follow ${followId} did not queue ${count} records in ${timeoutMs} ms`, timeoutMs, async (client) => {
    const { rows } = await client.query<{ id: string; status: string }>(
      `select l.id, l.status from livestreams l join livestream_submitters s on s.livestream_id = l.id
        where s.provider = 'follow' and s.user_id = $1 order by l.created_at, l.id`,
      [followId],
    );
    return rows.length >= count ? rows : null;
  });
}

/** Resolves with what `read` returns once it is not null, read again at each change to records. */
async function whenRecordsChange<T>(
  databaseUrl: string,
  timeoutMessage: string,
  timeoutMs: number,
  read: (client: pg.Client) => Promise<T | null>,
): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('listen kura_livestreams_changed');
    return await new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(timeoutMessage)), timeoutMs);
      const check = async () => {
        const found = await read(client);
        if (found !== null) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      client.on('notification', () => void check().catch(reject));
      // the database dropped under a wait the test gave up on: this wait fails, not the whole run
      client.on('error', reject);
      void check().catch(reject);
    });
  } finally {
    await client.end();
  }
}
