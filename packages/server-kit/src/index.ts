// What both apps' servers share that is not about partner tokens: request logging without
// credentials, the probes' log lines, graceful shutdown, JSON bodies, the docs UI's CSP and the
// Prometheus listener.
export * from './log-redaction.js';
export * from './probe-logging.js';
export * from './lifecycle.js';
export * from './json-body.js';
export * from './docs-ui.js';
export * from './metrics-listener.js';
