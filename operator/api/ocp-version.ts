// Moved to the shared client layer (client/api/ocp-version.ts); kept here so that the operator's
// imports stay as they are until they are moved over.
export * from '../../client/api/ocp-version.js';
