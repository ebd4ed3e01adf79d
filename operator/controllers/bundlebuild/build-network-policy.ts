import { NETWORK_POLICIES } from '../../../client/api/core-resources.js';
import type { Desired, KubeObject } from '../../kube/objects.js';
import { LABEL_BUILD_ROLE, LABEL_BUILD_STEP } from '../../../contracts/bundle-build.js';
import type { Bundle } from './build-meta.js';
import { buildLabels, buildMeta } from './build-meta.js';
import type { BuildNames } from './build-names.js';
import type { BuildPass } from './build-pass.js';
import { ROLE } from './build-record.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';

interface NetworkPolicy extends KubeObject {
  spec?: Record<string, unknown>;
}

/** KubeVirt's label on every virt-launcher pod. */
const LAUNCHER = { 'kubevirt.io': 'virt-launcher' };
const exists = (key: string) => ({ key, operator: 'Exists' });

/**
 * Who may reach the build's VMs (their launcher pods, installer and target): port 22, from the
 * pods of this attempt's step Jobs only. The pull secret sits in those guests while they run;
 * nothing else of the namespace or the cluster reaches them (as for crc instances,
 * docs/permissions.md#permissions).
 */
export function buildGuestNetworkPolicy(
  bundle: Bundle,
  attempt: string,
  namespace: string,
  names: BuildNames,
): Desired<NetworkPolicy> {
  const attemptLabels = buildLabels(bundle, attempt);
  return {
    apiVersion: NETWORK_POLICIES.apiVersion,
    kind: NETWORK_POLICIES.kind,
    metadata: buildMeta(bundle, attempt, namespace, names.guests),
    spec: {
      podSelector: {
        matchLabels: { ...attemptLabels, ...LAUNCHER },
        matchExpressions: [exists(LABEL_BUILD_ROLE)],
      },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchLabels: attemptLabels,
                matchExpressions: [exists(LABEL_BUILD_STEP)],
              },
            },
          ],
          ports: [{ protocol: 'TCP', port: 22 }],
        },
      ],
    },
  };
}

/**
 * The guests' NetworkPolicy, made and recorded before any stage runs (so before any VM starts,
 * also for an attempt an earlier operator began without one); then only checked, as every
 * recorded object is. `record` when it was just recorded: the pass writes that first.
 */
export function ensureGuestPolicy(pass: BuildPass): Promise<Verdict<Nothing>> {
  const { bundle, attempt, namespace, names } = pass;
  return pass.ensure(ROLE.guestPolicy, NETWORK_POLICIES, names.guests, () =>
    buildGuestNetworkPolicy(bundle, attempt, namespace, names),
  );
}
