-- Retention (docs/decisions/0077): rules that remove old archives through the takedown path, per
-- follow (its columns), per channel (channel_retention) and for the instance (the environment);
-- a pinned record is kept whatever the rules say. A null limit is no limit.
alter table follows
  add column retention_keep_last integer check (retention_keep_last >= 0),
  add column retention_max_age_days integer check (retention_max_age_days >= 0),
  add column retention_max_gb double precision check (retention_max_gb >= 0);

create table channel_retention (
  channel_id   text primary key,
  keep_last    integer check (keep_last >= 0),
  max_age_days integer check (max_age_days >= 0),
  max_gb       double precision check (max_gb >= 0),
  updated_by   text not null,
  updated_at   timestamptz not null
);

alter table livestreams add column pinned boolean not null default false;

