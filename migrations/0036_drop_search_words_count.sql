-- Migration 0033 re-created search_words_count(), the trigger function of the search_words table
-- that 0008 dropped with its table: no trigger calls it, and the table it writes is gone. Found by
-- the upgrade test from 0.6.0 (test/integration/upgrade-from-0.6.0.test.ts).
drop function if exists search_words_count();
