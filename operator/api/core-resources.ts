// Moved to the shared client layer (client/api/core-resources.ts); kept here so that the
// operator's imports stay as they are until they are moved over.
export * from '../../client/api/core-resources.js';
