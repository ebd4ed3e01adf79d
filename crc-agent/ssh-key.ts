// Shared with the operator, which makes what the agent checks: moved to contracts/ssh-key.ts.
export * from '../contracts/ssh-key.js';
