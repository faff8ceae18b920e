export * from './enums.js';
export * from './people.js';
export * from './catalog.js';
export * from './learning.js';
export * from './partners.js';
export * from './aggregates.js';
export * from './authoring.js';
export * from './partner-events.js';
