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
  /** 410: the run attempt is gone (deleted). */
  RunGone: 'RunGone',
  /** 422 or another 4xx about the run's request. */
  RequestRejected: 'RequestRejected',
  /** The run's request had no answer in time. */
  RequestTimedOut: 'RequestTimedOut',
  /** A redirect: the repository was renamed or transferred. */
  RepositoryMoved: 'RepositoryMoved',
  /** 403 without a rate limit: SAML SSO, an IP allow list, or no access. */
  RepositoryAccessDenied: 'RepositoryAccessDenied',
  /** 451: blocked for legal reasons. */
  RepositoryUnavailable: 'RepositoryUnavailable',
  /** The namespace's leases name more distinct runs than the operator asks about per namespace. */
  RunCapReached: 'RunCapReached',
  /** The namespace has used its requests to GitHub for this hour. */
  RequestBudgetExhausted: 'RequestBudgetExhausted',
  /** Held after a failure, or made with the Action's `release: false`: GitHub is not asked. */
  KeptPastItsJob: 'KeptPastItsJob',
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
  /**
   * Something a person acts on (the run, its repository, the namespace's budget): the lease gets
   * a Warning Event of the reason when its condition first says it.
   */
  warn?: boolean;
}

/** No usable answer from GitHub, and when to ask again (epoch ms). */
export interface UnknownRun extends RunVerdict {
  kind: 'unknown';
  status: 'Unknown';
  retryAtMs: number;
}
