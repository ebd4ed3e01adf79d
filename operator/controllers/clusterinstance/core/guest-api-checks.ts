import { createHash } from 'node:crypto';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { Stored } from '../../../kube/objects.js';
import { objectKey } from '../../../kube/objects.js';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import { OffPathChecks } from '../../../runtime/off-path-checks.js';
import type { GuestApiProbe } from './guest-api-probe.js';

/** Guest API checks under way at once, for all instances of the operator. */
export const GUEST_API_CHECK_LIMIT = 64;
/** A check's end at the latest: the probe's connect, headers and body timeouts (10 s each). */
export const GUEST_API_CHECK_DEADLINE_MS = 30_000;

/** What a pass learns of its guest API: it answered, it did not (why), or the check is not done. */
export type GuestApiVerdict =
  | { answered: true }
  | { answered: false; message: string }
  | { pending: true; lastFailure?: string };

/** The checks of every instance of one controller, sharing one cap (off-path-checks.ts). */
export function guestApiCheckRunner(onDone: (key: string) => void): OffPathChecks<void> {
  return new OffPathChecks<void>({
    what: 'the guest API readiness check',
    limit: GUEST_API_CHECK_LIMIT,
    deadlineMs: GUEST_API_CHECK_DEADLINE_MS,
    onDone,
  });
}

/**
 * The guest API readiness check of a pass (docs/reference/naming.md#waits-off-the-workers): the
 * probe runs off the worker, and its end queues the instance's next pass, which takes the
 * verdict. An outcome counts only for the instance (UID) and the access it was asked with.
 */
export class GuestApiChecks {
  constructor(
    private readonly runner: OffPathChecks<void>,
    private readonly probe: GuestApiProbe,
  ) {}

  verdict(instance: Stored<ClusterInstance>, access: GuestAccess): GuestApiVerdict {
    const key = objectKey(instance);
    const taken = this.runner.take(key, accessFingerprint(instance, access), () =>
      this.probe(access),
    );
    if ('pending' in taken) return { pending: true, lastFailure: this.runner.lastFailure(key) };
    return taken.outcome.ok
      ? { answered: true }
      : { answered: false, message: taken.outcome.error.message };
  }
}

/** What an outcome was asked about: the instance's UID and the access it was asked with. */
export function accessFingerprint(instance: Stored<ClusterInstance>, access: GuestAccess): string {
  const credential =
    'token' in access.credentials
      ? access.credentials.token
      : access.credentials.cert + access.credentials.key;
  const hash = createHash('sha256').update(access.ca).update('\0').update(credential);
  return `${instance.metadata.uid}/${access.server}/${hash.digest('hex')}`;
}
