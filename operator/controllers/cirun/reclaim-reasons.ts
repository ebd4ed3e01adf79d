/**
 * Reasons of a lease's RunCompleted condition (part of the compatibility contract): True when
 * GitHub says the lease's job (or, without a job id, its whole run attempt) has completed, False
 * while it runs, Unknown whenever GitHub gave no usable answer. Only True releases the lease.
 */
export const RunReason = {
  JobCompleted: 'JobCompleted',
  AttemptCompleted: 'AttemptCompleted',
  JobInProgress: 'JobInProgress',
  AttemptInProgress: 'AttemptInProgress',
  JobNotFound: 'JobNotFound',
  RunNotFound: 'RunNotFound',
  RateLimited: 'RateLimited',
  GitHubUnavailable: 'GitHubUnavailable',
  CredentialRejected: 'CredentialRejected',
  CredentialInvalid: 'CredentialInvalid',
  RepositoryNotAllowed: 'RepositoryNotAllowed',
  InvalidRunAnnotations: 'InvalidRunAnnotations',
} as const;
export type RunReason = (typeof RunReason)[keyof typeof RunReason];

export const RUN_COMPLETED_CONDITION = 'RunCompleted';
/** The Normal Event on a lease released because its run completed. */
export const RUN_COMPLETED_EVENT = 'RunCompleted';

/** A run's state as the leases of it are told. */
export interface RunVerdict {
  status: 'True' | 'False' | 'Unknown';
  reason: RunReason;
  message: string;
}

/** No usable answer from GitHub, and when to ask again (epoch ms). */
export interface UnknownRun extends RunVerdict {
  kind: 'unknown';
  status: 'Unknown';
  retryAtMs: number;
}
