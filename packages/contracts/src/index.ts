export * from './errors.js';
export * from './health.js';
export * from './course-creation.js';
