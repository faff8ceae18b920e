export * from './errors.js';
export * from './health.js';
export * from './progress.js';
