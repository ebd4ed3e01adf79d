import { CI_ACCESS_POLICY_RESOURCE } from './generated/ci-access-policy.js';
import { CLUSTER_INSTANCE_RESOURCE } from './generated/cluster-instance.js';
import { CLUSTER_LEASE_RESOURCE } from './generated/cluster-lease.js';
import { CLUSTER_POOL_RESOURCE } from './generated/cluster-pool.js';
import { CRC_BUNDLE_RESOURCE } from './generated/crc-bundle.js';
import { VERSION_STREAM_RESOURCE } from './generated/version-stream.js';
import { resourceType } from '../kube/resource-type.js';

export const POOLS = CLUSTER_POOL_RESOURCE;
export const INSTANCES = CLUSTER_INSTANCE_RESOURCE;
export const LEASES = CLUSTER_LEASE_RESOURCE;
export const BUNDLES = CRC_BUNDLE_RESOURCE;
export const VERSION_STREAMS = VERSION_STREAM_RESOURCE;
export const CI_ACCESS_POLICIES = CI_ACCESS_POLICY_RESOURCE;
export const NAMESPACES = resourceType('v1', 'Namespace', 'namespaces', false);
export const SECRETS = resourceType('v1', 'Secret', 'secrets');

export type { ClusterPool } from './generated/cluster-pool.js';
export type { ClusterInstance } from './generated/cluster-instance.js';
export type { ClusterLease } from './generated/cluster-lease.js';
export type { CRCBundle } from './generated/crc-bundle.js';
export type { VersionStream } from './generated/version-stream.js';
export type { CIAccessPolicy } from './generated/ci-access-policy.js';
