-- Room on every page of `courses` for its own counter updates, and the trigram index rebuilt.
--
-- Enrolments, chapter completions, certificates and purchases update their course's counters
-- (student_count, completed_chapters_sum, ...: 0002, 0003), so a course row is rewritten on
-- nearly every learner write. When the new version fits on the row's page it touches no index
-- (a HOT update: no indexed column changes). When it does not, it goes to another page and
-- every index of the table gets an entry for it, the trigram index of search_text some 90. On
-- pages packed full (fillfactor 100) that happens whenever the page has nothing to prune yet:
-- 7 updates in 200 one at a time (packages/db/test/courses-fillfactor.test.ts), and nearly
-- every row of a whole-table update (the counters' recomputation, 0003, `lms-admin`, a bulk
-- load). VACUUM removes the dead entries but does not compact the index: after the bench's load
-- (10,000 courses, five recomputations) it was 13 MB against 1.7 MB rebuilt, and a search read
-- 9x the index pages (432 against 47; 1.9-3.3 ms against 0.4-0.8 ms for the match alone).
--
-- With a fifth of each page free, one-at-a-time updates stay HOT (200 in 200 in that test).
-- Existing rows get the room as they are next moved; the index is rebuilt here once (a short
-- lock on a table of courses, which is small).
ALTER TABLE courses SET (fillfactor = 80);
--> statement-breakpoint
REINDEX INDEX courses_search_trgm_idx;
