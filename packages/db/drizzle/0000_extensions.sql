-- pg_trgm backs the catalog search index (courses_search_trgm_idx).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
