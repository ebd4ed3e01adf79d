import {
  LABEL_CLUSTER_INSTANCE,
  LABEL_CLUSTER_INSTANCE_NAMESPACE,
  LABEL_MANAGED_BY,
  MANAGED_BY_OPERATOR,
} from '../../../api/labels.js';
import type { ClusterInstance } from '../../../api/resources.js';
import { INSTANCES } from '../../../api/resources.js';
import {
  CLUSTER_ROLES,
  JOBS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
  SERVICES,
} from '../../../api/core-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  ROUTES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { Job, Secret } from '../../../kube/workloads.js';
import { RESTRICTED_CONTAINER_SECURITY, RESTRICTED_POD_SECURITY } from '../../../kube/workloads.js';
import type { PlatformObject } from '../hcp/hcp-builders.js';
import { instanceOwnerReference } from '../hcp/hcp-ownership.js';
import {
  agentAccountName,
  agentBindingName,
  agentHandoffBindingName,
  agentHandoffRoleName,
  agentJobName,
  bootKeySecretName,
  crcApiName,
  crcDiskName,
  crcVmName,
  handoffSecretName,
  identitySecretName,
  instanceSshKeySecretName,
} from './crc-naming.js';
import { atLeast, quantityBytes } from './quantity.js';
import { AGENT_MOUNTS, AGENT_PATHS, AgentJobSpec } from '../../../../contracts/agent-job.js';
import { HANDOFF_MANAGED_BY } from '../../../../contracts/handoff.js';

const DEFAULT_ROOT_VOLUME = '80Gi';
const API_PORT = 6443;
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

/** Where the root disk comes from: CDI imports a URL (manual) or clones the bundle's golden PVC. */
export type DiskSource =
  | { http: string }
  | {
      pvc: { namespace: string; name: string };
      storageClassName?: string;
      /** The golden disk's virtual size; the clone is never smaller. */
      virtualSizeBytes?: number;
      /** The golden PVC's storage request; CDI refuses to clone into a smaller one. */
      sourceRequest?: string;
    };

/** Where the agent finds the guest's SSH key. */
export interface SshKeyRef {
  secretName: string;
  dataKey: string;
}

/** The agent's pods: the common labels, and what the guest's NetworkPolicy lets in. */
export function agentPodLabels(instance: ClusterInstance): Record<string, string> {
  return { ...commonLabels(instance), [LABEL_COMPONENT]: AGENT_COMPONENT };
}

/** managed-by and instance labels (spec §3 "common labels"). */
export function commonLabels(instance: ClusterInstance): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR,
    [LABEL_CLUSTER_INSTANCE]: instance.metadata!.name!,
  };
}

function metadata(instance: ClusterInstance, name: string): KubeObject['metadata'] {
  return {
    name,
    namespace: instance.metadata!.namespace!,
    labels: commonLabels(instance),
    ownerReferences: [instanceOwnerReference(instance)],
  };
}

/**
 * What a clone of the golden disk requests: the template's size, raised to the disk's virtual size
 * and to the golden PVC's own request. CDI clones through its CSI clone populator, which refuses
 * a target that requests less than its source (with the `storage` API CDI adds its filesystem
 * overhead to a Filesystem target on top, so the source's request is always enough).
 */
function cloneRequest(requested: string, source: Extract<DiskSource, { pvc: object }>): string {
  const size = atLeast(requested, source.virtualSizeBytes);
  const golden = source.sourceRequest;
  return golden && quantityBytes(golden) > quantityBytes(size) ? golden : size;
}

/** The root disk (spec §3.1). */
export function buildDataVolume(instance: ClusterInstance, source: DiskSource): PlatformObject {
  const template = instance.spec.template;
  const requested = template.rootVolumeSize || DEFAULT_ROOT_VOLUME;
  const clone = 'pvc' in source;
  const storageClassName = template.storageClassName || (clone ? source.storageClassName : '');
  return {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: metadata(instance, crcDiskName(instance)),
    spec: {
      source: clone ? { pvc: { ...source.pvc } } : { http: { url: source.http } },
      storage: {
        resources: {
          requests: { storage: clone ? cloneRequest(requested, source) : requested },
        },
        ...(storageClassName ? { storageClassName } : {}),
      },
    },
  };
}

/** The VM (spec §3.2): labels also on the VMI template, so the VMI and launcher pod carry them. */
export function buildVirtualMachine(instance: ClusterInstance): PlatformObject {
  const template = instance.spec.template;
  return {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: metadata(instance, crcVmName(instance)),
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: commonLabels(instance) },
        spec: {
          ...(template.vmNodeSelector ? { nodeSelector: { ...template.vmNodeSelector } } : {}),
          // A disposable guest is not worth a live migration: it stops for a node drain instead
          // of making virt-api refuse the launcher pod's eviction (HCO's cluster-wide LiveMigrate
          // policy on a VMI that cannot migrate), which would hold up MachineConfig rollouts.
          evictionStrategy: 'None',
          domain: {
            resources: { requests: { memory: template.memory, cpu: String(template.cores) } },
            devices: { disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }] },
          },
          volumes: [{ name: 'rootdisk', dataVolume: { name: crcDiskName(instance) } }],
        },
      },
    },
  };
}

/** The guest API Service (spec §3.3); it selects the default VM name, as the reference does. */
export function buildApiService(instance: ClusterInstance): PlatformObject {
  return {
    apiVersion: SERVICES.apiVersion,
    kind: SERVICES.kind,
    metadata: metadata(instance, crcApiName(instance.metadata!.name!)),
    spec: {
      type: 'ClusterIP',
      selector: { [LABEL_VM_NAME]: instance.metadata!.name! },
      ports: [{ name: 'api', protocol: 'TCP', port: API_PORT, targetPort: API_PORT }],
    },
  };
}

/** The passthrough API Route (spec §3.4a). */
export function buildApiRoute(instance: ClusterInstance, hostname: string): PlatformObject {
  const name = crcApiName(instance.metadata!.name!);
  return {
    apiVersion: ROUTES.apiVersion,
    kind: ROUTES.kind,
    metadata: {
      ...metadata(instance, name),
      labels: {
        ...commonLabels(instance),
        [LABEL_CLUSTER_INSTANCE_NAMESPACE]: instance.metadata!.namespace!,
      },
    },
    spec: {
      host: hostname,
      to: { kind: 'Service', name, weight: 100 },
      port: { targetPort: 'api' },
      tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
    },
  };
}

export interface AgentJobInputs {
  image: string;
  vmiUid: string;
  vmiAddress: string;
  hostname: string;
  pullSecretName: string;
  sshKey: SshKeyRef;
}

/** The crc-agent Job of one VMI (spec §3.8); never updated once it exists. */
export function buildAgentJob(instance: ClusterInstance, inputs: AgentJobInputs): Job {
  const name = instance.metadata!.name!;
  const env = AgentJobSpec.toEnv({
    instanceName: name,
    instanceNamespace: instance.metadata!.namespace!,
    // The agent then checks that the handoff Secret it writes is controlled by this instance.
    instanceUid: instance.metadata!.uid!,
    sshHost: inputs.vmiAddress,
    vmiUid: inputs.vmiUid,
    apiHostname: inputs.hostname,
    paths: AGENT_PATHS,
  });
  return {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: metadata(instance, agentJobName(name, inputs.vmiUid)),
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

export function buildAgentServiceAccount(instance: ClusterInstance): KubeObject {
  return {
    apiVersion: SERVICE_ACCOUNTS.apiVersion,
    kind: SERVICE_ACCOUNTS.kind,
    metadata: metadata(instance, agentAccountName(instance.metadata!.name!)),
  };
}

function agentSubjects(instance: ClusterInstance): RbacObject['subjects'] {
  return [
    {
      kind: 'ServiceAccount',
      name: agentAccountName(instance.metadata!.name!),
      namespace: instance.metadata!.namespace!,
    },
  ];
}

/** Binds the shared ClusterRole to the agent's account in the instance namespace (spec §3.9). */
export function buildAgentBinding(instance: ClusterInstance, clusterRole: string): RbacObject {
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: metadata(instance, agentBindingName(instance.metadata!.name!)),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: agentSubjects(instance),
  };
}

/**
 * Read and overwrite the one handoff Secret of the current VMI, nothing else (ADR 0010); read the
 * instance itself, for the SSH host key recorded in its status.
 */
export function buildHandoffRole(instance: ClusterInstance, vmiUid: string): RbacObject {
  return {
    apiVersion: ROLES.apiVersion,
    kind: ROLES.kind,
    metadata: metadata(instance, agentHandoffRoleName(instance.metadata!.name!)),
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'update'],
        resourceNames: [handoffSecretName(instance.metadata!.name!, vmiUid)],
      },
      {
        apiGroups: ['guestcluster.opdev.io'],
        resources: [INSTANCES.plural],
        verbs: ['get'],
        resourceNames: [instance.metadata!.name!],
      },
    ],
  };
}

export function buildHandoffBinding(instance: ClusterInstance): RbacObject {
  const name = instance.metadata!.name!;
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: metadata(instance, agentHandoffBindingName(name)),
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
export function buildHandoffSecret(instance: ClusterInstance, vmiUid: string): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      ...metadata(instance, handoffSecretName(instance.metadata!.name!, vmiUid)),
      labels: {
        [LABEL_MANAGED_BY]: HANDOFF_MANAGED_BY,
        [LABEL_CLUSTER_INSTANCE]: instance.metadata!.name!,
      },
    },
    type: 'Opaque',
  };
}

/** The instance's own copy of the bundle's boot key (spec §2.3.9). */
export function buildBootKeySecret(instance: ClusterInstance, keyBase64: string): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(instance, bootKeySecretName(instance.metadata!.name!)),
    type: 'Opaque',
    data: { id_ecdsa: keyBase64 },
  };
}
