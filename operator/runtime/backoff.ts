export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** 0.2 spreads each delay over ±20%, so that many retries do not fire in step. */
  jitter?: number;
}

/** The delay before retry number `attempt` (1-based): base·2^(attempt−1), capped, jittered. */
export function backoffDelay(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = policy.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 52));
  const capped = Math.min(policy.maxMs, exponential);
  const jitter = policy.jitter ?? 0;
  return Math.round(capped * (1 - jitter + 2 * jitter * random()));
}
