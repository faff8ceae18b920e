// What both apps' servers share that is not about partner tokens: request logging without
// credentials, the docs UI's CSP and the Prometheus listener.
export * from './log-redaction.js';
export * from './docs-ui.js';
export * from './metrics-listener.js';
