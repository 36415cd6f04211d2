import pg from 'pg';

/**
 * Resolves with a record's row once `accept` takes it. Event-driven: Kura's triggers NOTIFY every
 * committed change to records, and the row is re-read at each notification.
 */
export async function waitForRecord(
  databaseUrl: string,
  id: string,
  accept: (row: { status: string; failure_reason: string | null }) => boolean,
  timeoutMs = 180_000,
): Promise<{ status: string; failure_reason: string | null; file_size_bytes: number | null; length_seconds: number | null }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('listen kura_livestreams_changed');
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`record ${id} did not reach the expected state in ${timeoutMs} ms`)), timeoutMs);
      const check = async () => {
        const { rows } = await client.query('select * from livestreams where id = $1', [id]);
        if (rows[0] && accept(rows[0])) {
          clearTimeout(timer);
          resolve(rows[0]);
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
