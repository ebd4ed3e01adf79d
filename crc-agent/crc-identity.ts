// Shared with the operator, which makes what the agent checks: moved to contracts/crc-identity.ts.
export * from '../contracts/crc-identity.js';
