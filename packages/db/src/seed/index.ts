export {
  seedDemo,
  pointDemoPartnerAt,
  DEMO_PARTNER,
  DEMO_TEACHER_EMAIL,
  DEMO_INSTITUTION,
  type SeedDemoOptions,
  type SeedDemoResult,
} from './demo.js';
export { seedSynthetic, type SyntheticSize, type SyntheticProgress, type SyntheticResult } from './synthetic.js';
export { DEMO_QUICK_COURSE, insertQuickCourse } from './demo-quick-course.js';
