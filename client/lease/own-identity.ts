import type { ClusterLease } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { ApiError } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import { resourceType } from '../kube/resource-type.js';

/** One entry of a lease's spec.subjects. */
export type LeaseSubject = NonNullable<ClusterLease['spec']['subjects']>[number];

const SELF_SUBJECT_REVIEWS = resourceType(
  'authentication.k8s.io/v1',
  'SelfSubjectReview',
  'selfsubjectreviews',
  false,
);

interface SelfSubjectReview extends KubeObject {
  status?: { userInfo?: { username?: string } };
}

const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):([^:]+)$/;

/** The RBAC subject of a username: a ServiceAccount's own form, else a User. */
export function subjectOf(username: string): LeaseSubject | undefined {
  if (!username || username === 'system:anonymous') return undefined;
  const account = SERVICE_ACCOUNT.exec(username);
  return account
    ? { kind: 'ServiceAccount', namespace: account[1]!, name: account[2]! }
    : { kind: 'User', name: username };
}

/**
 * Who the Action is on the management cluster (a SelfSubjectReview, authentication.k8s.io/v1:
 * every authenticated identity may ask), as the lease's one subject: the operator then lets
 * exactly this identity read exactly this lease's kubeconfig. Undefined, with the reason, when
 * the cluster cannot say (a cluster older than Kubernetes 1.28, or a refusal).
 */
export async function ownSubject(
  api: ApiClient,
): Promise<{ subject: LeaseSubject } | { unknown: string }> {
  try {
    const review = await api.create<SelfSubjectReview>(SELF_SUBJECT_REVIEWS, {
      apiVersion: SELF_SUBJECT_REVIEWS.apiVersion,
      kind: SELF_SUBJECT_REVIEWS.kind,
    });
    const username = review.status?.userInfo?.username ?? '';
    const subject = subjectOf(username);
    return subject ? { subject } : { unknown: `the cluster knows it as "${username}"` };
  } catch (error) {
    if (error instanceof ApiError && [403, 404].includes(error.status))
      return { unknown: `SelfSubjectReview failed: ${error.message}` };
    throw error;
  }
}
