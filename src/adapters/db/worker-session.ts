// Decisions: docs/decisions/0092-leases-and-worker-sessions.md
import type pg from 'pg';

/**
 * Notes `client`'s session as `workerId`'s (decision 0038): while it lasts the worker is alive;
 * once PostgreSQL ends it (the process died, its connection dropped), `gone_workers` names the
 * worker and its captures are taken over at once. Sessions of gone workers that hold nothing any
 * more are forgotten at the same time.
 */
export async function noteWorkerSession(client: pg.Client, workerId: string): Promise<void> {
  await client.query(
    `with forgotten as (
       delete from worker_sessions s where s.worker_id in (select worker_id from gone_workers)
         and not exists (select 1 from captures c where c.worker_id = s.worker_id)
         and not exists (select 1 from chat_captures h where h.worker_id = s.worker_id))
     insert into worker_sessions (worker_id, backend_pid, backend_start)
       select $1, pid, backend_start from pg_stat_activity where pid = pg_backend_pid()
     on conflict (worker_id) do update set backend_pid = excluded.backend_pid, backend_start = excluded.backend_start, noted_at = now()`,
    [workerId],
  );
}
