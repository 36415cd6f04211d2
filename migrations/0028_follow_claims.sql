-- Follows held by a worker (decision 0082): a worker claims many follows at once and keeps their
-- schedule in its memory, so a claim no longer moves next_check_at. `claimed_by` is the holding
-- worker (a random id per poller), `claim_expires_at` when its lease runs out unless renewed: then
-- another worker takes the follow over. Null: no worker holds it.
alter table follows add column claimed_by text, add column claim_expires_at timestamptz;

-- What the workers hear on `kura_follows`, the follow's id as payload: a follow added, removed, or
-- changed in what a check reads (its rules, names, pause) or brought forward (a resume), so the
-- worker holding it reloads it and a free one is claimed. A check's own writes (health, signals,
-- the next check later) say nothing. `*`: follows were let go (a worker stopped): claim them.
drop trigger follows_due_added on follows;
drop trigger follows_due_sooner on follows;
drop function follows_notify_due();

create function follows_tell_pollers() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_follows', case when TG_OP = 'DELETE' then OLD.id else NEW.id end);
  return null;
end $$;

create trigger follows_poller_added after insert on follows
  for each row when (not NEW.paused) execute function follows_tell_pollers();

create trigger follows_poller_removed after delete on follows
  for each row execute function follows_tell_pollers();

create trigger follows_poller_changed after update of paused, next_check_at, channel_name, title, title_include, title_exclude,
    members_only, quality, retention_keep_last, retention_max_age_days, retention_max_gb on follows
  for each row when (OLD.paused is distinct from NEW.paused or NEW.next_check_at < OLD.next_check_at
    or OLD.channel_name is distinct from NEW.channel_name or OLD.title is distinct from NEW.title
    or OLD.title_include is distinct from NEW.title_include or OLD.title_exclude is distinct from NEW.title_exclude
    or OLD.members_only is distinct from NEW.members_only or OLD.quality is distinct from NEW.quality
    or OLD.retention_keep_last is distinct from NEW.retention_keep_last
    or OLD.retention_max_age_days is distinct from NEW.retention_max_age_days
    or OLD.retention_max_gb is distinct from NEW.retention_max_gb)
  execute function follows_tell_pollers();

create function follows_tell_pollers_released() returns trigger language plpgsql as $$
begin
  perform pg_notify('kura_follows', '*');
  return null;
end $$;

-- one notification per statement: PostgreSQL sends one of identical payloads per transaction
create trigger follows_poller_released after update of claimed_by on follows
  for each row when (OLD.claimed_by is not null and NEW.claimed_by is null and not NEW.paused)
  execute function follows_tell_pollers_released();
