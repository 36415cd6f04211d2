-- Members-only access of a follow (issue 31): when YouTube refuses a members-only (or sign-in)
-- stream a follow includes, the cookies Kura hands yt-dlp (KURA_YTDLP_COOKIES) no longer give
-- access, and the follow is failing for it (failing_since, as when every signal fails) until the
-- refused stream opens again. jsonb, read and written whole with the check's outcome:
-- {"error": "…", "since": "ISO time", "probeUrl": "https://www.youtube.com/watch?v=…"}; null: none.
alter table follows add column access_refused jsonb;
