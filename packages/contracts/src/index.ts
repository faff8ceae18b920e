export * from './errors.js';
export * from './health.js';
export * from './course-creation.js';
export * from './api-keys.js';
export * from './gateway.js';
export * from './progress.js';
export * from './catalog.js';
export * from './sso.js';
