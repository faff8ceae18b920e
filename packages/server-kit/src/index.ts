// What both apps' servers share that is not about partner tokens: request logging without
// credentials, the probes' log lines, graceful shutdown, JSON bodies, the docs UI's CSP, the
// Prometheus listener and the metrics both apps keep (requests by route, the process's), reading
// the environment, the start-up steps of both servers, and how long a client may take.
export * from './log-redaction.js';
export * from './probe-logging.js';
export * from './lifecycle.js';
export * from './json-body.js';
export * from './docs-ui.js';
export * from './metrics-listener.js';
export * from './app-metrics.js';
export * from './config.js';
export * from './startup.js';
export * from './connection-limits.js';
export * from './openapi-document.js';
