// Shared with the operator, which makes what the agent checks: moved to contracts/certificates.ts.
export * from '../contracts/certificates.js';
