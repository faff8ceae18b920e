export * from './constants.js';
export * from './unverified.js';
