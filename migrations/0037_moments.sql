-- Moments (issue 54, decision 0130): a time in a record and a short text (a song, an announcement),
-- added by a logged-in user while the stream is recorded or once it is archived. Adding one is an
-- event of the outbox (`moment.added`): the record's snapshot, and the moment in `data`.
create table moments (
  id            text primary key,
  livestream_id text not null references livestreams (id) on delete cascade,
  at_seconds    double precision not null check (at_seconds >= 0),
  text          text not null check (char_length(text) between 1 and 200),
  -- who added it, as a submitter is named (provider/userId)
  author        text not null,
  created_at    timestamptz not null default now(),
  updated_at    timestamptz not null default now()
);
create index moments_of_record on moments (livestream_id, at_seconds);

create function moment_added() returns trigger language plpgsql as $$
declare
  l livestreams;
  event_id bigint;
begin
  select * into l from livestreams where id = new.livestream_id;
  event_id := enqueue_event('moment.added', l.id, l.channel_id, livestream_snapshot(l));
  update events set data = jsonb_build_object('moment', jsonb_build_object(
    'id', new.id, 'at', new.at_seconds, 'text', new.text, 'author', new.author, 'createdAt', new.created_at))
  where id = event_id;
  return new;
end $$;
create trigger moments_added after insert on moments for each row execute function moment_added();
