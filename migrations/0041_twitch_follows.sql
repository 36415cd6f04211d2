-- Twitch channels may be followed (issue 56, decision 0135): a follow's kind may be
-- `twitch_channel`, whose one signal (`helix`, Twitch's API) lives in the signals JSON like the
-- others. The check was named by PostgreSQL when the table was made (0013).
alter table follows drop constraint follows_kind_check;
alter table follows add constraint follows_kind_check check (kind in ('youtube_channel', 'holodex', 'hls_endpoint', 'twitch_channel'));
