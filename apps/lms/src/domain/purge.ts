/**
 * Rows one statement of the housekeeping deletes at most. A batch is a few milliseconds of the
 * database's time, far under any statement timeout, and holds its row locks that long only; a
 * backlog of 600,000 rows is 600 such statements, with the event loop free between them.
 */
export const PURGE_BATCH_ROWS = 1_000;
