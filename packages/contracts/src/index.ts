export * from './errors.js';
export * from './health.js';
export * from './catalog.js';
