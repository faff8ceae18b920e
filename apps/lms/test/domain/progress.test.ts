import t from 'tap';
import { completionRate } from '../../src/domain/progress.js';

// CI runs this file once (not again in the PostgreSQL pass): pure functions, no database.

t.test('completionRate: the exact mean, rounded half up to 2 decimals at the end only', async (t) => {
  t.equal(completionRate([]), 0, 'no enrollments: 0');
  t.equal(completionRate([{ chapter_count: 0, enrollments: 3, completed_sum: '0' }]), 0, 'only chapterless courses: 0');
  // 2469/20000 × 100 = 12.345 exactly; in floating point 2469/20000*100*100 = 1234.4999… would round down.
  t.equal(completionRate([{ chapter_count: 20000, enrollments: 1, completed_sum: '2469' }]), 12.35);
  // Rounding only at the end: three enrollments of 1/3 each = 33.333… each; rounding each first
  // (33.33 × 3 / 3) gives the same, so mix: 1/3 and 2/3 of a 3-chapter course plus one of a
  // 0-chapter course: (33.333… + 66.666… + 0)/3 = 33.333… → 33.33.
  t.equal(
    completionRate([
      { chapter_count: 3, enrollments: 2, completed_sum: '3' },
      { chapter_count: 0, enrollments: 1, completed_sum: '0' },
    ]),
    33.33,
  );
  // 1/8 + 1/8 + 0 over 3 enrollments of two courses with 8 and 6 chapters:
  // (12.5 + 0 + 16.666…)/3 = 29.1666…/3 = 9.7222… → 9.72
  t.equal(
    completionRate([
      { chapter_count: 8, enrollments: 2, completed_sum: '1' },
      { chapter_count: 6, enrollments: 1, completed_sum: '1' },
    ]),
    9.72,
  );
  // 2/3 rounded per enrollment first would be 66.67 × 1 + 0 over 2 = 33.335 → 33.34 (wrong);
  // exactly: 66.666…/2 = 33.333… → 33.33.
  t.equal(
    completionRate([
      { chapter_count: 3, enrollments: 1, completed_sum: '2' },
      { chapter_count: 5, enrollments: 1, completed_sum: '0' },
    ]),
    33.33,
  );
  t.equal(completionRate([{ chapter_count: 7, enrollments: 4, completed_sum: '28' }]), 100, 'all done: 100');
});
