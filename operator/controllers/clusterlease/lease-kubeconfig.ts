import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { LEASES, SECRETS } from '../../api/resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../kube/api-error.js';
import type { KubeObject } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { KubeconfigNotPublishedError, leaseKubeconfigData } from './lease-kubeconfig-source.js';
import { kubeconfigSecretName } from '../../../contracts/names.js';

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/** The lease's copy of its cluster's kubeconfig: `<lease>-kubeconfig`, in the lease namespace. */
export function leaseSecretName(lease: ClusterLease): string {
  return kubeconfigSecretName(lease.metadata!.name!);
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
const rewritten = (existing: SecretObject, data: Record<string, string>): SecretObject => ({
  ...existing,
  metadata: {
    ...existing.metadata,
    labels: { ...existing.metadata?.labels, ...LEASE_SECRET_LABELS },
  },
  data,
});

const ownedBy = (secret: SecretObject, lease: ClusterLease): boolean =>
  !!secret.metadata?.ownerReferences?.some((r) => r.controller && r.uid === lease.metadata!.uid);

/**
 * The lease's kubeconfig Secret: written from the instance the lease claims or is bound to, and
 * checked against the bound instance (status.instanceRef) on every pass while bound, so a copy
 * that a second manager with a stale cache wrote for another instance does not stay.
 */
export class LeaseSecrets {
  constructor(private readonly manager: Manager) {}

  /**
   * Creates the copy while the claim on `instance` is still under way; leaves an existing one
   * alone (it may be another manager's, for the instance this lease is bound to). True: created.
   */
  async createFor(lease: ClusterLease, instance: ClusterInstance): Promise<boolean> {
    const data = await leaseSecretData(this.manager, instance);
    try {
      await this.manager.client.create<SecretObject>(SECRETS, this.build(lease, data));
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  /** Makes the copy hold `instance`'s kubeconfig, creating or rewriting it. */
  async writeFor(lease: ClusterLease, instance: ClusterInstance): Promise<void> {
    const data = await leaseSecretData(this.manager, instance);
    const existing = await this.read(lease);
    if (!existing) {
      await this.manager.client.create<SecretObject>(SECRETS, this.build(lease, data));
      return;
    }
    if (!sameContent(existing.data ?? {}, data))
      await this.manager.client.update(SECRETS, rewritten(existing, data));
  }

  /**
   * Checks the copy of a bound lease against its instance: from the cache, and on a difference
   * once more live (the cache may lag behind this controller's own write). A copy that is
   * missing or holds something else is rewritten, with a Warning Event. True: it was repaired.
   */
  async verify(
    lease: ClusterLease,
    instance: ClusterInstance,
    context: ReconcileContext,
  ): Promise<boolean> {
    const data = await leaseSecretData(this.manager, instance).catch((error: unknown) => {
      // An instance between two kubeconfigs (being provisioned again, or rewriting one someone
      // changed) has nothing to compare with.
      if (isNotFound(error) || error instanceof KubeconfigNotPublishedError) return undefined;
      throw error;
    });
    if (!data) return false;
    const { namespace } = lease.metadata!;
    const cached = this.manager
      .informer<SecretObject>(SECRETS)
      .get(`${namespace}/${leaseSecretName(lease)}`);
    if (cached && ownedBy(cached, lease) && sameContent(cached.data ?? {}, data)) return false;
    const live = await this.read(lease);
    if (live && sameContent(live.data ?? {}, data)) return false;
    try {
      if (live) await this.manager.client.update(SECRETS, rewritten(live, data));
      else await this.manager.client.create<SecretObject>(SECRETS, this.build(lease, data));
    } catch (error) {
      // Someone wrote it meanwhile: its event brings the next check.
      if (isConflict(error) || isAlreadyExists(error)) return false;
      throw error;
    }
    const what = live ? 'held a kubeconfig that is not its' : 'was missing';
    const message = `Secret ${leaseSecretName(lease)} ${what}; rewrote it from ClusterInstance ${instance.metadata!.name}`;
    context.logger.warn({ instance: instance.metadata!.name }, `Repaired lease kubeconfig Secret`);
    void this.manager.events.record(lease, 'Warning', 'KubeconfigSecretRepaired', message);
    return true;
  }

  /** Deletes the copy (this lease's only): a lost lease holds no credentials. */
  async remove(lease: ClusterLease): Promise<void> {
    const existing = await this.read(lease);
    if (!existing) return;
    await this.manager.client
      .delete(SECRETS, existing.metadata!.name!, existing.metadata!.namespace, {
        uid: existing.metadata!.uid,
      })
      .catch((error: unknown) => {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      });
  }

  /**
   * Why `<lease>-kubeconfig` cannot be this lease's: an object of that name that the lease does
   * not own (an instance named like the lease publishes its kubeconfig under the same name).
   * Undefined when the name is free or the lease's. Checked before claiming anything.
   */
  foreignOwner(lease: ClusterLease): string | undefined {
    const { namespace, uid } = lease.metadata!;
    const name = leaseSecretName(lease);
    const existing = this.manager.informer<SecretObject>(SECRETS).get(`${namespace}/${name}`);
    if (!existing || existing.metadata?.ownerReferences?.some((ref) => ref.uid === uid))
      return undefined;
    const owner = existing.metadata?.ownerReferences?.find((ref) => ref.controller);
    const whose = owner ? `${owner.kind} ${owner.name}'s` : 'another object';
    return `Secret ${namespace}/${name}, where this lease's kubeconfig would go, is ${whose}; recreate the lease under another name`;
  }

  /** The lease's Secret read live; undefined when absent; an error when it is not the lease's. */
  private async read(lease: ClusterLease): Promise<SecretObject | undefined> {
    const { namespace } = lease.metadata!;
    const name = leaseSecretName(lease);
    let existing: SecretObject;
    try {
      existing = await this.manager.client.get<SecretObject>(SECRETS, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (!ownedBy(existing, lease))
      throw new Error(`lease kubeconfig Secret ${namespace}/${name} belongs to another owner`);
    return existing;
  }

  private build(lease: ClusterLease, data: Record<string, string>): SecretObject {
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: leaseSecretName(lease),
        namespace: lease.metadata!.namespace,
        labels: LEASE_SECRET_LABELS,
        ownerReferences: [
          {
            apiVersion: LEASES.apiVersion,
            kind: LEASES.kind,
            name: lease.metadata!.name!,
            uid: lease.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      type: 'Opaque',
      data,
    };
  }
}
