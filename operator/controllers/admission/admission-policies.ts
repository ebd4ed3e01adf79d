import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { GUESTCLUSTER_API_VERSION, GUESTCLUSTER_GROUP as GROUP } from '../../../contracts/api.js';
import type { KubeObject } from '../../kube/objects.js';
import { resourceType } from '../../../client/kube/resource-type.js';

export const ADMISSION_POLICIES = resourceType(
  'admissionregistration.k8s.io/v1',
  'ValidatingAdmissionPolicy',
  'validatingadmissionpolicies',
  false,
);
export const ADMISSION_POLICY_BINDINGS = resourceType(
  'admissionregistration.k8s.io/v1',
  'ValidatingAdmissionPolicyBinding',
  'validatingadmissionpolicybindings',
  false,
);

/**
 * The verb on our kinds that only cluster administrators hold (cluster-wide): cluster-admin's
 * `*` covers it, the operator's own role names it, and none of the roles a namespace's users get
 * does, OLM's generated `edit` included (docs/permissions.md#bounds).
 */
export const ADMIN_VERB = 'manage';

export type AdmissionPolicy = KubeObject & { spec: Record<string, unknown> };

/** A policy and its binding, which shares its name. */
export interface PolicyPair {
  name: string;
  policy: AdmissionPolicy;
  binding: AdmissionPolicy;
}

const heldLabelIn = (object: string): string =>
  `has(${object}.metadata.labels) && ${object}.metadata.labels[?'${LABEL_LEASE_HELD}'].orValue('') == 'true'`;

function pair(
  name: string,
  spec: Record<string, unknown>,
  binding: Record<string, unknown> = {},
): PolicyPair {
  const metadata = { name, labels: { 'app.kubernetes.io/managed-by': 'guestcluster-operator' } };
  return {
    name,
    policy: {
      apiVersion: ADMISSION_POLICIES.apiVersion,
      kind: ADMISSION_POLICIES.kind,
      metadata,
      spec: { failurePolicy: 'Fail', ...spec },
    },
    binding: {
      apiVersion: ADMISSION_POLICY_BINDINGS.apiVersion,
      kind: ADMISSION_POLICY_BINDINGS.kind,
      metadata,
      spec: { policyName: name, validationActions: ['Deny'], ...binding },
    },
  };
}

/**
 * Keeps every ClusterLease's spec.ttl within its pool's spec.maxLeaseDuration (plus
 * spec.maxHoldDuration for a held lease), at the door: a lease's own CEL cannot read its pool, a
 * policy with the pool as its parameter can (ADR 0025). Checked on create and when the TTL or the
 * held label changes; a refusal names the cap. The lease controller checks the same limits
 * itself where admission cannot see (docs/reference/kinds.md#lease-limits).
 */
function leaseTtlPolicy(): PolicyPair {
  return pair(
    'guestcluster-lease-ttl-within-pool-limits',
    {
      paramKind: { apiVersion: GUESTCLUSTER_API_VERSION, kind: 'ClusterPool' },
      matchConstraints: leaseRules(),
      matchConditions: [
        {
          // A write that leaves the TTL and the held label alone (finalizers, annotations) is
          // never refused, also when the pool's limit was lowered since.
          name: 'ttl-or-hold-changed',
          expression: `request.operation == 'CREATE' || (has(object.spec.ttl) ? object.spec.ttl : '0') != (has(oldObject.spec.ttl) ? oldObject.spec.ttl : '0') || (${heldLabelIn('object')}) != (${heldLabelIn('oldObject')})`,
        },
      ],
      variables: [
        // Every pool of the namespace is a parameter (the binding selects them all).
        {
          name: 'ownPool',
          expression:
            'params.metadata.name == object.spec.poolRef.name && has(params.spec.maxLeaseDuration)',
        },
        { name: 'ttl', expression: "has(object.spec.ttl) ? object.spec.ttl : '0'" },
        { name: 'held', expression: heldLabelIn('object') },
        {
          name: 'hold',
          expression:
            "variables.held && has(params.spec.maxHoldDuration) ? duration(params.spec.maxHoldDuration) : duration('0s')",
        },
        {
          name: 'cap',
          expression:
            "variables.ownPool ? duration(params.spec.maxLeaseDuration) + variables.hold : duration('0s')",
        },
        {
          name: 'capText',
          expression:
            "'spec.maxLeaseDuration ' + params.spec.maxLeaseDuration + (variables.held && has(params.spec.maxHoldDuration) ? ' plus spec.maxHoldDuration ' + params.spec.maxHoldDuration + ' (the lease is held)' : '')",
        },
      ],
      validations: [
        {
          expression: "!variables.ownPool || duration(variables.ttl) > duration('0s')",
          messageExpression:
            "'spec.ttl is required: ClusterPool ' + params.metadata.name + ' limits its leases to ' + variables.capText",
          reason: 'Invalid',
        },
        {
          expression: '!variables.ownPool || duration(variables.ttl) <= variables.cap',
          messageExpression:
            "'spec.ttl ' + variables.ttl + ' is above what ClusterPool ' + params.metadata.name + ' allows: ' + variables.capText + ', counted from binding'",
          reason: 'Invalid',
        },
      ],
    },
    // All pools of the lease's namespace; none at all (no pool yet) lets the lease in.
    { paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } },
  );
}

/**
 * A lease is held (label guestcluster.opdev.io/held) only after it was bound, and once: refused
 * on create, on a lease not yet bound, and on one that was held before (status.heldAt).
 */
function leaseHoldPolicy(): PolicyPair {
  const was = `request.operation == 'UPDATE' && (${heldLabelIn('oldObject')})`;
  const oldStatus = (field: string): string =>
    `has(oldObject.status) && has(oldObject.status.${field})`;
  return pair('guestcluster-lease-held-after-binding', {
    matchConstraints: leaseRules(),
    matchConditions: [{ name: 'held', expression: `(${heldLabelIn('object')}) && !(${was})` }],
    validations: [
      {
        expression: "request.operation != 'CREATE'",
        message: `a new ClusterLease may not be labelled ${LABEL_LEASE_HELD}=true: a lease is held only after it was bound (the Action's hold-on-failure sets the label)`,
        reason: 'Invalid',
      },
      {
        expression: oldStatus('boundTime'),
        message: `${LABEL_LEASE_HELD}=true may be set only on a bound ClusterLease`,
        reason: 'Invalid',
      },
      {
        expression: `!(${oldStatus('heldAt')})`,
        messageExpression: `'the ClusterLease was held once already, at ' + string(oldObject.status.heldAt) + ': a lease is held once'`,
        reason: 'Invalid',
      },
    ],
  });
}

/**
 * Writes that decide what another namespace gets, or what the platform runs, come from cluster
 * administrators only: creating a ClusterInstance (the operator's pools make them; a tenant's
 * would be provisioned outside any pool), and any change to a CRCBundle (a golden disk every pool
 * may clone), a VersionStream (the release pools roll to) or a CIAccessPolicy (whose CI runs get
 * which ServiceAccount's tokens, docs/ci-identities.md). Admins hold `manage` on the kind
 * cluster-wide; a namespace's roles never do, whatever an install aggregates into them.
 */
function adminWritesPolicy(): PolicyPair {
  const rule = (resources: string[], operations: string[]): Record<string, unknown> => ({
    apiGroups: [GROUP],
    apiVersions: ['*'],
    operations,
    resources,
  });
  return pair('guestcluster-admin-writes', {
    matchConstraints: {
      resourceRules: [
        rule(['clusterinstances'], ['CREATE']),
        rule(['crcbundles', 'versionstreams', 'ciaccesspolicies'], ['CREATE', 'UPDATE', 'DELETE']),
      ],
    },
    validations: [
      {
        expression: `authorizer.group('${GROUP}').resource(request.resource.resource).check('${ADMIN_VERB}').allowed()`,
        messageExpression: `request.userInfo.username + ' may not ' + request.operation.lowerAscii() + ' ' + request.resource.resource + ': only cluster administrators may (they hold ${ADMIN_VERB} on ' + request.resource.resource + '.${GROUP} cluster-wide)'`,
        reason: 'Forbidden',
      },
    ],
  });
}

function leaseRules(): Record<string, unknown> {
  return {
    resourceRules: [
      {
        apiGroups: [GROUP],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['clusterleases'],
      },
    ],
  };
}

/** Every admission policy the operator keeps, with its binding. */
export function admissionPolicies(): PolicyPair[] {
  return [leaseTtlPolicy(), leaseHoldPolicy(), adminWritesPolicy()];
}
