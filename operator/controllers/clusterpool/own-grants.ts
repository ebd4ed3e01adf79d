import type { ClusterInstance } from '../../../client/api/resources.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { Stored } from '../../kube/objects.js';
import { writeProvisioningGrant } from '../binding/instance-status-writes.js';
import { isInstanceOf } from '../binding/pool-membership.js';

/**
 * The instances this process created for its pools, by UID, until its cache shows their
 * authorization (as Hive's pool controller keeps "expectations" of its own creates). Between the
 * create and the grant's watch event the cache shows an instance that names the pool without
 * the authorization that makes it the pool's; one of these is the pool's all the same, and one
 * whose grant failed is granted by the next pass.
 */
export class OwnGrants {
  private readonly created = new Map<string, { granted: boolean }>();

  constructor(private readonly client: KubeClient) {}

  /** Whether the cached instance is one of `pool`'s: proven so, or just made by this process. */
  isMember(instance: Stored<ClusterInstance>, pool: string): boolean {
    const own = this.created.get(instance.metadata.uid);
    if (isInstanceOf(instance, pool)) {
      if (own) this.created.delete(instance.metadata.uid);
      return true;
    }
    return !!own && instance.spec.poolRef?.name === pool;
  }

  /** Records the authorization on an instance this process has just created for `pool`. */
  async grant(instance: Stored<ClusterInstance>, pool: string, now: number): Promise<void> {
    this.created.set(instance.metadata.uid, { granted: false });
    await writeProvisioningGrant(this.client, instance, pool, now);
    this.created.set(instance.metadata.uid, { granted: true });
  }

  /** Grants again what this process created and could not grant (the apiserver failed it). */
  async retryFailed(instances: readonly Stored<ClusterInstance>[], now: number): Promise<void> {
    for (const instance of instances) {
      const pool = instance.spec.poolRef?.name;
      if (
        pool &&
        this.created.get(instance.metadata.uid)?.granted === false &&
        !instance.status?.provisioning
      )
        await this.grant(instance, pool, now);
    }
  }

  /** Forgets an instance that is gone. */
  forget(uid: string): void {
    this.created.delete(uid);
  }
}
