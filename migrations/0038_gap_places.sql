-- Where each lost stretch lies on the recording's timeline (decision 0129): seconds from the first
-- recorded segment, the earlier lost stretches counted, as the live player and a clip count them.
-- Written when a finalized capture is compacted (its segments, which place it, are deleted then);
-- null before that, for a stretch lost before the first segment (no part of the archive), and for
-- captures compacted before this migration.
alter table capture_gaps add column at_seconds double precision;
