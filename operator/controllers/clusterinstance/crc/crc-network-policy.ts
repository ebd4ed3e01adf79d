import { LABEL_CLUSTER_INSTANCE } from '../../../api/labels.js';
import { LABEL_VM_NAME } from '../../../api/platform-resources.js';
import type { Desired, KubeObject } from '../../../kube/objects.js';
import { sameContent } from '../../../kube/objects.js';
import { NETWORK_POLICIES } from '../../../../client/api/core-resources.js';
import type { Instance, InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { commonLabels } from '../core/naming.js';
import { AGENT_COMPONENT, LABEL_COMPONENT } from './crc-agent-builders.js';
import { crcVmName, guestNetworkPolicyName } from './crc-naming.js';
import { controllerReference } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

export { NETWORK_POLICIES };

/** KubeVirt's label on every virt-launcher pod. */
const LAUNCHER_LABEL = { 'kubevirt.io': 'virt-launcher' };
/**
 * Namespaces of OpenShift's router: its own (policy group ingress) and, when it runs on the host
 * network, the host network's (OVN-Kubernetes gives that traffic this policy group).
 */
const ROUTER_NAMESPACES = [
  'policy-group.network.openshift.io/ingress',
  'policy-group.network.openshift.io/host-network',
];

interface NetworkPolicy extends KubeObject {
  spec?: Record<string, unknown>;
}

/**
 * Who may reach the guest (its VM's launcher pod): port 22 only from the instance's own crc-agent
 * pods, port 6443 only from the router (the API Route passes TLS through to it). Nothing else of
 * the namespace, or of other namespaces, reaches the guest's sshd.
 */
export function buildGuestNetworkPolicy(instance: Instance): Desired<NetworkPolicy> {
  return {
    apiVersion: NETWORK_POLICIES.apiVersion,
    kind: NETWORK_POLICIES.kind,
    metadata: {
      name: guestNetworkPolicyName(instance.metadata.name),
      namespace: instance.metadata.namespace,
      labels: commonLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    spec: {
      podSelector: { matchLabels: { ...LAUNCHER_LABEL, [LABEL_VM_NAME]: crcVmName(instance) } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchLabels: {
                  [LABEL_CLUSTER_INSTANCE]: instance.metadata.name,
                  [LABEL_COMPONENT]: AGENT_COMPONENT,
                },
              },
            },
          ],
          ports: [{ protocol: 'TCP', port: 22 }],
        },
        {
          from: ROUTER_NAMESPACES.map((label) => ({
            namespaceSelector: { matchLabels: { [label]: '' } },
          })),
          ports: [{ protocol: 'TCP', port: 6443 }],
        },
      ],
    },
  };
}

/** The guest's NetworkPolicy, made before the agent runs and kept to what it must say. */
export async function ensureGuestNetworkPolicy(
  api: InstanceApi,
  objects: InstanceObjects,
): Promise<void> {
  const desired = buildGuestNetworkPolicy(objects.instance);
  const { object } = await objects.ensure(NETWORK_POLICIES, desired);
  if (!sameContent(object.spec, desired.spec))
    await api.update(NETWORK_POLICIES, { ...object, spec: desired.spec });
}
