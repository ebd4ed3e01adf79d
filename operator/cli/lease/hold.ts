import { MAX_LEASE_TTL_MS } from '../../../client/api/duration.js';
import { findCondition } from '../../../client/api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isInvalid } from '../../../client/kube/api-error.js';
import type { BeyondLimits, Hold } from '../../../client/lease/hold-lease.js';
import { HoldBeyondLimitError, holdLease } from '../../../client/lease/hold-lease.js';
import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { badInput, CommandExit, EXIT } from './exit-codes.js';
import { readLease } from './read-lease.js';
import { holdInstructions } from './hold-instructions.js';
import { durationFlag, leaseNameFlag, outputFormat } from './lease-flags.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { observed } from './observed.js';
import { say, tell } from './terminal.js';

/** A hold as the JSON answers of `hold` and `release` give it (docs/reference/cli.md#json--o-json). */
export interface HoldAnswer {
  result: 'held' | 'already-held';
  ttl: string;
  until: string;
  holdSeconds: number;
  shortenedBy: string | null;
}

/** A hold duration: more than 0, and no more than a TTL may be. */
export function holdFlag(flag: string, value: string): number {
  const ms = durationFlag(flag, value);
  if (ms > MAX_LEASE_TTL_MS) throw badInput(`${flag} is "${value}"; expected at most 8760h`);
  return ms;
}

/**
 * Holds that very lease (by UID) for `holdMs` from now with the lease client's hold
 * (client/lease/hold-lease.ts): within the pool's limits, shortened or refused beyond them. A
 * lease held already keeps its hold (a hold is set once). Throws a CommandExit that says why
 * there is nothing to hold, or why the hold was refused.
 */
export async function holdExactly(
  api: ApiClient,
  lease: ClusterLease,
  holdMs: number,
  beyondLimits: BeyondLimits,
): Promise<{ hold: Hold; answer: HoldAnswer }> {
  const { name, namespace, uid } = lease.metadata!;
  const where = `ClusterLease ${namespace}/${name}`;
  const already = lease.metadata?.labels?.[LABEL_LEASE_HELD] === 'true';
  let outcome: Awaited<ReturnType<typeof holdLease>>;
  try {
    outcome = await holdLease(
      api,
      { name: name!, namespace: namespace!, uid },
      holdMs,
      Date.now(),
      beyondLimits,
    );
  } catch (error) {
    if (error instanceof HoldBeyondLimitError)
      throw badInput(`${where} cannot be held: ${error.message}`);
    // Admission's refusal, when the pool's limits could not be read here: its message names them.
    if (isInvalid(error)) throw badInput(`${where} cannot be held: ${(error as Error).message}`);
    throw error;
  }
  if (outcome === 'gone' || outcome === 'not-ours')
    throw new CommandExit(EXIT.error, `${where} not found`);
  if (outcome === 'not-bound')
    throw badInput(`${where} is not bound: only a bound lease can be held`);
  return {
    hold: outcome,
    answer: {
      result: already ? 'already-held' : 'held',
      ttl: outcome.ttl,
      until: outcome.until,
      holdSeconds: Math.round(outcome.holdMs / 1000),
      shortenedBy: outcome.shortenedBy ?? null,
    },
  };
}

/**
 * A hold the operator did not take (where the pool could not be read here and no admission policy
 * runs): its condition TTLAccepted says which limit, and that the lease keeps its deadline.
 */
async function checkTaken(api: ApiClient, held: ClusterLease, where: string): Promise<void> {
  const seen = await observed(api, held);
  const accepted = findCondition(seen.status?.conditions, 'TTLAccepted');
  if (accepted?.status === 'False')
    throw badInput(
      `${where} is labelled held, but the operator did not take its TTL (${accepted.reason}): ${accepted.message}`,
    );
}

/**
 * `guestcluster lease hold NAME --for D`: keeps a bound lease's cluster for D from now, for
 * debugging, as the Action's hold-on-failure does; a hold beyond the pool's limits is refused
 * (exit 2), naming the limit, and nothing is changed.
 */
export async function hold(
  nameArgument: string,
  flags: ManagementFlags & { for: string; output?: string },
): Promise<void> {
  const output = outputFormat(flags.output);
  const name = leaseNameFlag('NAME', nameArgument);
  const holdMs = holdFlag('--for', flags.for);
  if (holdMs <= 0) throw badInput(`--for is "${flags.for}"; expected more than 0`);
  const { api, namespace } = managementAccess(flags);
  const where = `ClusterLease ${namespace}/${name}`;
  try {
    const lease = await readLease(api, namespace, name);
    const { hold: held, answer } = await holdExactly(api, lease, holdMs, 'refuse');
    if (answer.result === 'held') await checkTaken(api, held.lease, where);
    tell(
      answer.result === 'held'
        ? holdInstructions(held, 'on request')
        : `${where} was held already (a hold is set once and counts from status.heldAt): the operator releases it at ${answer.until}`,
    );
    if (output === 'json') say(JSON.stringify({ name, namespace, ...answer }, null, 2));
    else say(`${where}: ${answer.result} until ${answer.until}`);
  } finally {
    await api.close();
  }
}
