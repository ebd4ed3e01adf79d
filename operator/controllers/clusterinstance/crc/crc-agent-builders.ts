import { LABEL_CLUSTER_INSTANCE, LABEL_MANAGED_BY } from '../../../api/labels.js';
import { INSTANCES } from '../../../../client/api/resources.js';
import {
  CLUSTER_ROLES,
  JOBS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../../../client/api/core-resources.js';
import type { Desired, KubeObject } from '../../../kube/objects.js';
import type { Job, Secret } from '../../../kube/workloads.js';
import { RESTRICTED_CONTAINER_SECURITY, RESTRICTED_POD_SECURITY } from '../../../kube/workloads.js';
import type { Instance } from '../core/instance-api.js';
import { commonLabels } from '../core/naming.js';
import type { SshKeyRef } from './crc-builders.js';
import { instanceMetadata } from './crc-builders.js';
import {
  agentAccountName,
  agentBindingName,
  agentHandoffBindingName,
  agentHandoffRoleName,
  agentJobName,
  handoffSecretName,
  identitySecretName,
  instanceSshKeySecretName,
} from './crc-naming.js';
import { AGENT_MOUNTS, AGENT_PATHS, AgentJobSpec } from '../../../../contracts/agent-job.js';
import { HANDOFF_MANAGED_BY } from '../../../../contracts/handoff.js';

/*
 * The crc-agent's objects (docs/reference/generated-objects.md#crc-agent-job,
 * docs/reference/generated-objects.md#crc-agent-rbac, ADR 0010): its Job for one VMI, its account
 * and the permissions it gets, and the empty handoff Secret it fills in.
 */

const AGENT_BACKOFF_LIMIT = 2;
const AGENT_DEADLINE_SECONDS = 2700;
export { HANDOFF_MANAGED_BY };
/** The agent pods' component label (the guest NetworkPolicy admits these pods to SSH). */
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
export const AGENT_COMPONENT = 'crc-agent';

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface RbacObject extends KubeObject {
  rules?: PolicyRule[];
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** The agent's pods: the common labels, and what the guest's NetworkPolicy lets in. */
export function agentPodLabels(instance: Instance): Record<string, string> {
  return { ...commonLabels(instance), [LABEL_COMPONENT]: AGENT_COMPONENT };
}

export interface AgentJobInputs {
  image: string;
  vmiUid: string;
  vmiAddress: string;
  hostname: string;
  pullSecretName: string;
  sshKey: SshKeyRef;
}

/**
 * The crc-agent Job of one VMI (docs/reference/generated-objects.md#crc-agent-job); never updated
 * once it exists.
 */
export function buildAgentJob(instance: Instance, inputs: AgentJobInputs): Desired<Job> {
  const name = instance.metadata.name;
  const env = AgentJobSpec.toEnv({
    instanceName: name,
    instanceNamespace: instance.metadata.namespace,
    // The agent then checks that the handoff Secret it writes is controlled by this instance.
    instanceUid: instance.metadata.uid,
    sshHost: inputs.vmiAddress,
    vmiUid: inputs.vmiUid,
    apiHostname: inputs.hostname,
    paths: AGENT_PATHS,
  });
  return {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: instanceMetadata(instance, agentJobName(name, inputs.vmiUid)),
    spec: {
      backoffLimit: AGENT_BACKOFF_LIMIT,
      activeDeadlineSeconds: AGENT_DEADLINE_SECONDS,
      template: {
        metadata: { labels: agentPodLabels(instance) },
        spec: {
          restartPolicy: 'Never',
          securityContext: RESTRICTED_POD_SECURITY,
          serviceAccountName: agentAccountName(name),
          containers: [
            {
              name: 'crc-agent',
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              image: inputs.image,
              env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
              volumeMounts: Object.values(AGENT_MOUNTS).map((mount) => ({
                name: mount.volume,
                mountPath: mount.dir,
                readOnly: true,
              })),
            },
          ],
          volumes: [
            { name: AGENT_MOUNTS.pullSecret.volume, secret: { secretName: inputs.pullSecretName } },
            {
              name: AGENT_MOUNTS.bundleSshKey.volume,
              secret: {
                secretName: inputs.sshKey.secretName,
                items: [{ key: inputs.sshKey.dataKey, path: AGENT_MOUNTS.bundleSshKey.file }],
              },
            },
            {
              name: AGENT_MOUNTS.identity.volume,
              secret: { secretName: identitySecretName(name) },
            },
            {
              name: AGENT_MOUNTS.instanceSshKey.volume,
              secret: {
                secretName: instanceSshKeySecretName(name),
                items: [{ key: 'id_ed25519', path: AGENT_MOUNTS.instanceSshKey.file }],
              },
            },
          ],
        },
      },
    },
  };
}

/** The rules of the shared agent ClusterRole: reading VMIs only (ADR 0010). */
export const AGENT_CLUSTER_ROLE_RULES: PolicyRule[] = [
  {
    apiGroups: ['kubevirt.io'],
    resources: ['virtualmachineinstances'],
    verbs: ['get', 'list', 'watch'],
  },
];

export function buildAgentClusterRole(name: string): RbacObject {
  return {
    apiVersion: CLUSTER_ROLES.apiVersion,
    kind: CLUSTER_ROLES.kind,
    metadata: { name },
    rules: AGENT_CLUSTER_ROLE_RULES,
  };
}

export function buildAgentServiceAccount(instance: Instance): Desired<KubeObject> {
  return {
    apiVersion: SERVICE_ACCOUNTS.apiVersion,
    kind: SERVICE_ACCOUNTS.kind,
    metadata: instanceMetadata(instance, agentAccountName(instance.metadata.name)),
  };
}

function agentSubjects(instance: Instance): RbacObject['subjects'] {
  return [
    {
      kind: 'ServiceAccount',
      name: agentAccountName(instance.metadata.name),
      namespace: instance.metadata.namespace,
    },
  ];
}

/**
 * Binds the shared ClusterRole to the agent's account in the instance namespace
 * (docs/reference/generated-objects.md#crc-agent-rbac).
 */
export function buildAgentBinding(instance: Instance, clusterRole: string): Desired<RbacObject> {
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: instanceMetadata(instance, agentBindingName(instance.metadata.name)),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: agentSubjects(instance),
  };
}

/**
 * Read and overwrite the one handoff Secret of the current VMI, nothing else (ADR 0010); read the
 * instance itself, for the SSH host key recorded in its status.
 */
export function buildHandoffRole(instance: Instance, vmiUid: string): Desired<RbacObject> {
  return {
    apiVersion: ROLES.apiVersion,
    kind: ROLES.kind,
    metadata: instanceMetadata(instance, agentHandoffRoleName(instance.metadata.name)),
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'update'],
        resourceNames: [handoffSecretName(instance.metadata.name, vmiUid)],
      },
      {
        apiGroups: ['guestcluster.opdev.io'],
        resources: [INSTANCES.plural],
        verbs: ['get'],
        resourceNames: [instance.metadata.name],
      },
    ],
  };
}

export function buildHandoffBinding(instance: Instance): Desired<RbacObject> {
  const name = instance.metadata.name;
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: instanceMetadata(instance, agentHandoffBindingName(name)),
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: agentHandoffRoleName(name),
    },
    subjects: agentSubjects(instance),
  };
}

/**
 * The handoff Secret, made empty by the operator before the agent runs so that the agent needs
 * no create permission; the agent fills in its data (crc-agent output contract).
 */
export function buildHandoffSecret(instance: Instance, vmiUid: string): Desired<Secret> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...instanceMetadata(instance, handoffSecretName(instance.metadata.name, vmiUid)),
      labels: {
        [LABEL_MANAGED_BY]: HANDOFF_MANAGED_BY,
        [LABEL_CLUSTER_INSTANCE]: instance.metadata.name,
      },
    },
    type: 'Opaque',
  };
}
