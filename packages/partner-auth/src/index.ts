export * from './constants.js';
export * from './unverified.js';
export * from './errors.js';
export * from './logger.js';
export * from './log-redaction.js';
export * from './jwks-cache.js';
export * from './key-registry.js';
export * from './verify.js';
