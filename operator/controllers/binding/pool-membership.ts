import type { ClusterInstance } from '../../../client/api/resources.js';
import { metaTime } from '../../../client/kube/meta-time.js';

type InstanceStatus = NonNullable<ClusterInstance['status']>;

/**
 * Whether an instance is one of `pool`'s (docs/permissions.md#bounds): its spec names the pool
 * (the spec is immutable) and the operator authorized its provisioning in its status, which no
 * tenant role can write; for an instance of a pool only the pool controller records that, right
 * after it created the instance (provisioningGrant). Labels and owner references prove nothing:
 * an install whose tenants may write instances (OLM's generated roles) lets them set both.
 */
export function isInstanceOf(instance: ClusterInstance, pool: string): boolean {
  return instance.spec.poolRef?.name === pool && !!instance.status?.provisioning;
}

/** An instance that names a pool: the instance controller leaves it to the pool's authorization. */
export function namesPool(instance: ClusterInstance): string | undefined {
  return instance.spec.poolRef?.name || undefined;
}

/**
 * The status the pool controller writes on an instance it has just created: the authorization
 * to provision, which makes the instance the pool's.
 */
export function provisioningGrant(pool: string, now: number): InstanceStatus {
  return { phase: 'Provisioning', provisioning: { startedAt: metaTime(now), pool } };
}
