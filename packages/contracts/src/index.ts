export * from './errors.js';
export * from './health.js';
export * from './course-creation.js';
export * from './api-keys.js';
export * from './gateway.js';
