import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import { LEASES, SECRETS } from '../../../client/api/resources.js';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  orUndefined,
} from '../../../client/kube/api-error.js';
import type { Stored } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import { controllerReference, isControlledBy } from '../../kube/ownership.js';
import type { Secret } from '../../kube/workloads.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { leaseKubeconfigName } from '../binding/binding-model.js';
import { KubeconfigNotPublishedError, leaseKubeconfigData } from './lease-kubeconfig-source.js';
import { LeaseEvent } from './lease-status.js';

/** The lease's copy of its cluster's kubeconfig: `<lease>-kubeconfig`, in the lease namespace. */
export function leaseSecretName(lease: Lease): string {
  return leaseKubeconfigName(lease.metadata.name);
}

/**
 * What the lease Secret of a lease bound to `instance` must hold: the kubeconfig the operator
 * published for the instance, and only that (lease-kubeconfig-source.ts). Everything that writes
 * or checks the copy asks this one function.
 */
export const leaseSecretData = leaseKubeconfigData;

/** The operator caches only the Secrets it manages (label selector of the Secret informer). */
const LEASE_SECRET_LABELS = { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR };

/** The existing copy with `data`, and the labels that keep it in the operator's cache. */
const rewritten = (existing: Stored<Secret>, data: Record<string, string>): Stored<Secret> => ({
  ...existing,
  metadata: {
    ...existing.metadata,
    labels: { ...existing.metadata.labels, ...LEASE_SECRET_LABELS },
  },
  data,
});

/**
 * The lease's kubeconfig Secret: written from the instance the lease claims or is bound to, and
 * checked against the bound instance (status.instanceRef) on every pass while bound, so a copy
 * that a second manager with a stale cache wrote for another instance does not stay.
 */
export class LeaseSecrets {
  constructor(private readonly ports: ControllerPorts) {}

  /**
   * Creates the copy while the claim on `instance` is still under way; leaves an existing one
   * alone (it may be another manager's, for the instance this lease is bound to). True: created.
   */
  async createFor(lease: Lease, instance: Instance): Promise<boolean> {
    const data = await leaseSecretData(this.ports, instance);
    return !!(await this.ports.client.createIfAbsent(SECRETS, this.build(lease, data)));
  }

  /** Makes the copy hold `instance`'s kubeconfig, creating or rewriting it. */
  async writeFor(lease: Lease, instance: Instance): Promise<void> {
    const data = await leaseSecretData(this.ports, instance);
    await this.ports.client.ensure<Secret>(SECRETS, this.build(lease, data), (existing) => {
      this.mustOwn(lease, existing);
      return sameContent(existing.data ?? {}, data) ? undefined : rewritten(existing, data);
    });
  }

  /**
   * Checks the copy of a bound lease against its instance: from the cache, and on a difference
   * once more live (the cache may lag behind this controller's own write). A copy that is
   * missing or holds something else is rewritten, with a Warning Event. True: it was repaired.
   */
  async verify(lease: Lease, instance: Instance, context: ReconcileContext): Promise<boolean> {
    const data = await leaseSecretData(this.ports, instance).catch((error: unknown) => {
      // An instance between two kubeconfigs (being provisioned again, or rewriting one someone
      // changed) has nothing to compare with.
      if (isNotFound(error) || error instanceof KubeconfigNotPublishedError) return undefined;
      throw error;
    });
    if (!data) return false;
    const { namespace } = lease.metadata;
    const cached = (await this.ports.cache.read<Secret>(SECRETS)).get(
      leaseSecretName(lease),
      namespace,
    );
    if (cached && isControlledBy(cached, lease) && sameContent(cached.data ?? {}, data))
      return false;
    const live = await this.read(lease);
    if (live && sameContent(live.data ?? {}, data)) return false;
    const { client } = this.ports;
    const written = await orUndefined<unknown>(
      live
        ? client.update(SECRETS, rewritten(live, data))
        : client.create(SECRETS, this.build(lease, data)),
      // Someone wrote it meanwhile: its event brings the next check.
      isConflict,
      isAlreadyExists,
    );
    if (!written) return false;
    const what = live ? 'held a kubeconfig that is not its' : 'was missing';
    const message = `Secret ${leaseSecretName(lease)} ${what}; rewrote it from ClusterInstance ${instance.metadata.name}`;
    context.logger.warn({ instance: instance.metadata.name }, `Repaired lease kubeconfig Secret`);
    void this.ports.events.record(lease, 'Warning', LeaseEvent.KubeconfigSecretRepaired, message);
    return true;
  }

  /** Deletes the copy (this lease's only): a lost lease holds no credentials. */
  async remove(lease: Lease): Promise<void> {
    const existing = await this.read(lease);
    if (existing) await this.ports.client.deleteIfExists(SECRETS, existing);
  }

  /**
   * Why `<lease>-kubeconfig` cannot be this lease's: an object of that name that the lease does
   * not own (an instance named like the lease publishes its kubeconfig under the same name).
   * Undefined when the name is free or the lease's. Checked before claiming anything, and read
   * live: the operator caches only the Secrets it labels, and a Secret of someone else's is not
   * among them.
   */
  async foreignOwner(lease: Lease): Promise<string | undefined> {
    const { namespace, uid } = lease.metadata;
    const name = leaseSecretName(lease);
    const existing = await this.ports.client.getOrUndefined<Secret>(SECRETS, name, namespace);
    if (!existing || existing.metadata.ownerReferences?.some((ref) => ref.uid === uid))
      return undefined;
    const owner = existing.metadata.ownerReferences?.find((ref) => ref.controller);
    const whose = owner ? `${owner.kind} ${owner.name}'s` : 'another object';
    return `Secret ${namespace}/${name}, where this lease's kubeconfig would go, is ${whose}; recreate the lease under another name`;
  }

  /** The lease's Secret read live; undefined when absent; an error when it is not the lease's. */
  private async read(lease: Lease): Promise<Stored<Secret> | undefined> {
    const existing = await this.ports.client.getOrUndefined<Secret>(
      SECRETS,
      leaseSecretName(lease),
      lease.metadata.namespace,
    );
    if (existing) this.mustOwn(lease, existing);
    return existing;
  }

  private mustOwn(lease: Lease, secret: Stored<Secret>): void {
    if (!isControlledBy(secret, lease))
      throw new Error(
        `lease kubeconfig Secret ${secret.metadata.namespace}/${secret.metadata.name} belongs to another owner`,
      );
  }

  private build(lease: Lease, data: Record<string, string>): Secret {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: leaseSecretName(lease),
        namespace: lease.metadata.namespace,
        labels: LEASE_SECRET_LABELS,
        ownerReferences: [controllerReference(LEASES, lease)],
      },
      type: 'Opaque',
      data,
    };
  }
}
