-- A finalized capture keeps one summary of its parts instead of one row a segment, and its chat
-- is read from the file stored beside the archive instead of one row a message (decision 0112):
-- the two tables that grew with every second ever recorded now hold only what is being recorded.

-- [{part, bytes, segments, seconds}, …] in part order, written when the segments are deleted;
-- null while the capture records (or, finalized before this migration, until a sweep compacts it)
alter table captures add column part_summary jsonb;

-- the archive's 0 s, fixed when the messages are deleted (it was worked out from the segments);
-- filed_at: when they were, after which the messages are read from the stored chat file
alter table chat_captures add column archive_start timestamptz, add column filed_at timestamptz;

-- what the worker's sweep compacts: captures finalized before this migration (or whose finalize
-- stopped between marking the capture and compacting it)
create index captures_to_compact on captures (livestream_id) where state = 'finalized' and part_summary is null;
