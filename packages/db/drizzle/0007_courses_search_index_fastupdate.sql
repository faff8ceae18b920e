-- The trigram index of search_text takes new entries straight into its tree (fastupdate off),
-- not into a pending list that every search reads whole until a vacuum or a full list merges it.
--
-- With the default (fastupdate on) a course created or renamed goes to the pending list; up to
-- gin_pending_list_limit (4 MB) of it, and every catalog search scans all of it. Measured on the
-- bench's 10,000 courses after 5,000 more were created one per transaction (pgbench, PostgreSQL
-- 15, two runs each): the match of a search took 1.00-1.04 ms with the pending list against
-- 0.55 ms before; after a vacuum 0.71-0.73 ms, and the index had grown from 1.8 to 7.8 MB (the
-- list is merged in bulk, into half-empty pages). With fastupdate off: 0.74-0.77 ms at once,
-- 0.64-0.67 ms after a vacuum, the index 3.6 MB. The price is paid by the writes that change
-- search_text: a course insert took 0.47-0.49 ms against 0.28 ms. Courses are created and
-- renamed rarely and searched on every catalog query with a search; counter updates are HOT (0006) and
-- touch no index.
ALTER INDEX courses_search_trgm_idx SET (fastupdate = off);
--> statement-breakpoint
-- Entries already in the pending list are merged now rather than at the next vacuum.
SELECT gin_clean_pending_list('courses_search_trgm_idx'::regclass);
