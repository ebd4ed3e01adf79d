import type { ClusterLease } from '../api/resources.js';
import { LEASES } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isAlreadyExists, isNotFound } from '../kube/api-error.js';
import type { GitHubRun } from './github-run.js';
import { runAnnotations } from './github-run.js';
import { belongsTo, ownerConflict } from './lease-owner.js';
import type { LeaseSubject } from './own-identity.js';
import { ANNOTATION_KEEP_AFTER_JOB } from '../../contracts/run-annotations.js';

export interface LeaseRequest {
  name: string;
  namespace: string;
  pool: string;
  ttl: string;
  requestedBy: string;
  run: GitHubRun;
  /** Who may read the lease's kubeconfig (spec.subjects); none: the namespace's own RBAC decides. */
  subjects?: LeaseSubject[];
  /** The lease outlives the job (input `release: false`): the operator does not release it with the job. */
  keepAfterJob?: boolean;
  /** The OpenShift version the cluster must have (spec.ocpVersion; input `expected-ocp-version`). */
  ocpVersion?: string;
}

export function leaseObject(request: LeaseRequest): ClusterLease {
  return {
    apiVersion: LEASES.apiVersion,
    kind: LEASES.kind,
    metadata: {
      name: request.name,
      namespace: request.namespace,
      labels: { 'app.kubernetes.io/created-by': 'guestcluster-action' },
      annotations: {
        ...runAnnotations(request.run),
        ...(request.keepAfterJob ? { [ANNOTATION_KEEP_AFTER_JOB]: 'true' } : {}),
      },
    },
    spec: {
      poolRef: { name: request.pool },
      ...(request.ttl === '0' ? {} : { ttl: request.ttl }),
      requestedBy: request.requestedBy,
      ...(request.ocpVersion ? { ocpVersion: request.ocpVersion } : {}),
      ...(request.subjects?.length ? { subjects: request.subjects } : {}),
    },
  };
}

/** A lease the Action cannot create or take over; the message says what to do. */
export class LeaseConflictError extends Error {
  override name = 'LeaseConflictError';
}

export interface Acquired {
  lease: ClusterLease;
  /** True when a retried step found the lease its earlier try created. */
  adopted: boolean;
}

/**
 * Creates the lease, or takes over the one an earlier try of this step created. A lease of the
 * same name that belongs to someone else, another leg of the same matrix job included, is never
 * touched.
 */
export async function createOrAdoptLease(api: ApiClient, request: LeaseRequest): Promise<Acquired> {
  try {
    return { lease: await api.create(LEASES, leaseObject(request)), adopted: false };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  let existing: ClusterLease;
  try {
    existing = await api.get<ClusterLease>(LEASES, request.name, request.namespace);
  } catch (error) {
    // Deleted between the two requests: a fresh create settles it.
    if (isNotFound(error)) return createOrAdoptLease(api, request);
    throw error;
  }
  const where = `ClusterLease ${request.namespace}/${request.name}`;
  if (!belongsTo(existing, request.run))
    throw new LeaseConflictError(ownerConflict(existing, request.run));
  if (existing.metadata?.deletionTimestamp)
    throw new LeaseConflictError(
      `${where} from an earlier try of this step is still being released; retry the step when it is gone`,
    );
  return { lease: existing, adopted: true };
}
