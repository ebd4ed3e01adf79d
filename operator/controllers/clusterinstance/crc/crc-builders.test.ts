import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import {
  buildAgentBinding,
  buildAgentJob,
  buildHandoffBinding,
  buildHandoffRole,
  buildHandoffSecret,
} from './crc-agent-builders.js';
import {
  buildApiRoute,
  buildApiService,
  buildDataVolume,
  buildVirtualMachine,
} from './crc-builders.js';
import type { Stored, StoredCluster } from '../../../kube/objects.js';
import { quantityBytes } from '../../../kube/quantity.js';
import { CRC_KUBEVIRT_V1 } from '../../../api/vm-profile.js';
import type { CRCBundle } from '../../../../client/api/resources.js';
import { buildTargetVm } from '../../bundlebuild/build-vms.js';
import { buildNames } from '../../bundlebuild/build-names.js';

interface VmiSpec {
  domain: { firmware?: unknown; clock?: unknown; devices: { interfaces?: unknown } };
  networks?: unknown;
}

/** A built bundle, for the build's target VM the consumer's VM is compared with. */
const bundle = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'custom', uid: 'bundle-uid', resourceVersion: '1' },
  spec: { arch: 'amd64', build: { releaseImage: 'quay.io/x/release@sha256:00' } },
} as unknown as StoredCluster<CRCBundle>;

const instance = (
  template: Partial<ClusterInstance['spec']['template']> = {},
): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: {
    type: 'crc',
    template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4, ...template },
  },
});

const labels = {
  'opdev.io/managed-by': 'guestcluster-operator',
  'opdev.io/cluster-instance': 'pool-0',
};
const owner = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  name: 'pool-0',
  uid: 'uid-1',
  controller: true,
  blockOwnerDeletion: true,
};
const meta = (name: string): object => ({
  name,
  namespace: 'ci',
  labels,
  ownerReferences: [owner],
});

describe('crc builders', () => {
  it('imports the manual path disk over HTTP', () => {
    const dv = buildDataVolume(instance({ storageClassName: 'fast' }), {
      http: 'https://mirror/crc.qcow2',
    });
    expect(dv).toEqual({
      apiVersion: 'cdi.kubevirt.io/v1beta1',
      kind: 'DataVolume',
      metadata: meta('pool-0-rootdisk'),
      spec: {
        source: { http: { url: 'https://mirror/crc.qcow2' } },
        storage: { resources: { requests: { storage: '80Gi' } }, storageClassName: 'fast' },
      },
    });
  });

  it.each([
    // requested, bundle class, template class, virtual size, golden request, size, class
    [undefined, 'bundle-sc', undefined, 31 * 2 ** 30, '35Gi', '80Gi', 'bundle-sc'],
    ['20Gi', undefined, 'mine', 31 * 2 ** 30, undefined, '31744Mi', 'mine'],
    ['35G', undefined, undefined, 35e9 + 1, undefined, '33379Mi', undefined],
    ['100Gi', 'bundle-sc', 'mine', undefined, '35Gi', '100Gi', 'mine'],
    // CDI's CSI clone refuses a target that requests less than its source.
    ['20Gi', undefined, undefined, 31 * 2 ** 30, '35Gi', '35Gi', undefined],
    ['8Mi', undefined, undefined, 2 ** 20, '35Gi', '35Gi', undefined],
    ['34Gi', undefined, undefined, 36 * 2 ** 30, '35Gi', '36864Mi', undefined],
  ] as const)(
    'clones the golden PVC with %s requested (never below the virtual size nor the golden request)',
    (...row) => {
      const [requested, bundleClass, templateClass, virtualSize, golden, size, storageClass] = row;
      const dv = buildDataVolume(
        instance({ rootVolumeSize: requested, storageClassName: templateClass }),
        {
          pvc: { namespace: 'operators', name: 'crc-4.16.0-amd64-golden' },
          storageClassName: bundleClass,
          virtualSizeBytes: virtualSize,
          sourceRequest: golden,
        },
      );
      expect(dv.spec).toEqual({
        source: { pvc: { namespace: 'operators', name: 'crc-4.16.0-amd64-golden' } },
        storage: {
          resources: { requests: { storage: size } },
          ...(storageClass ? { storageClassName: storageClass } : {}),
        },
      });
      expect(quantityBytes(size)).toBeGreaterThanOrEqual(virtualSize ?? 0);
      expect(quantityBytes(size)).toBeGreaterThanOrEqual(quantityBytes(golden ?? '0'));
    },
  );

  it('builds the VirtualMachine, never evicted (a disposable guest)', () => {
    expect(buildVirtualMachine(instance({ vmNodeSelector: { zone: 'a' } }))).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: meta('pool-0'),
      spec: {
        runStrategy: 'Always',
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { zone: 'a' },
            evictionStrategy: 'None',
            domain: {
              resources: { requests: { memory: '16Gi', cpu: '4' } },
              devices: { disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }] },
            },
            volumes: [{ name: 'rootdisk', dataVolume: { name: 'pool-0-rootdisk' } }],
          },
        },
      },
    });
  });

  it("builds a built bundle's VirtualMachine on its VM profile, as the build's target VM had it", () => {
    const vm = buildVirtualMachine(instance(), CRC_KUBEVIRT_V1);
    const target = buildTargetVm(bundle, 'a1', 'ops', buildNames('custom', 'a1'), {
      profile: CRC_KUBEVIRT_V1,
      dnsIp: '172.30.0.10',
      clockOffsetSeconds: 0,
      cdrom: false,
      runStrategy: 'RerunOnFailure',
    });
    const spec = (object: typeof vm): VmiSpec =>
      (object.spec as { template: { spec: VmiSpec } }).template.spec;
    expect(spec(vm)).toEqual({
      evictionStrategy: 'None',
      domain: {
        resources: { requests: { memory: '16Gi', cpu: '4' } },
        firmware: { bootloader: { bios: {} } },
        clock: { utc: {} },
        devices: {
          disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }],
          interfaces: [{ name: 'default', masquerade: {} }],
        },
      },
      networks: [{ name: 'default', pod: {} }],
      volumes: [{ name: 'rootdisk', dataVolume: { name: 'pool-0-rootdisk' } }],
    });
    // What the profile fixes is the same in both VMs.
    const fixed = (s: VmiSpec): unknown => ({
      firmware: s.domain.firmware,
      clock: s.domain.clock,
      interfaces: s.domain.devices.interfaces,
      networks: s.networks,
    });
    expect(fixed(spec(vm))).toEqual(fixed(spec(target)));
  });

  it('builds the API Service and the passthrough Route', () => {
    expect(buildApiService(instance())).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('pool-0-crc-api'),
      spec: {
        type: 'ClusterIP',
        selector: { 'vm.kubevirt.io/name': 'pool-0' },
        ports: [{ name: 'api', protocol: 'TCP', port: 6443, targetPort: 6443 }],
      },
    });
    expect(buildApiRoute(instance(), 'api-pool-0-abc.apps.example')).toEqual({
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      metadata: {
        ...meta('pool-0-crc-api'),
        labels: { ...labels, 'opdev.io/cluster-instance-namespace': 'ci' },
      },
      spec: {
        host: 'api-pool-0-abc.apps.example',
        to: { kind: 'Service', name: 'pool-0-crc-api', weight: 100 },
        port: { targetPort: 'api' },
        tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
      },
    });
  });

  it('builds the crc-agent Job', () => {
    const job = buildAgentJob(instance(), {
      image: 'registry/crc-agent:1',
      vmiUid: 'vmi-1',
      vmiAddress: '10.0.0.7',
      hostname: 'api-pool-0-abc.apps.example',
      pullSecretName: 'pull-secret',
      sshKey: { secretName: 'bundle-key', dataKey: 'ssh-privatekey' },
    });
    expect(job.metadata).toEqual(meta('pool-0-crc-agent-f4acb2b455d5'));
    expect(job.spec.backoffLimit).toBe(2);
    expect(job.spec.activeDeadlineSeconds).toBe(2700);
    // The component label is what the guest's NetworkPolicy lets reach SSH.
    expect(job.spec.template.metadata).toEqual({
      labels: { ...labels, 'app.kubernetes.io/component': 'crc-agent' },
    });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.serviceAccountName).toBe('pool-0-crc-agent-6c6afab7c2cf');
    expect(pod.containers).toHaveLength(1);
    const [container] = pod.containers;
    expect(container!.name).toBe('crc-agent');
    expect(container!.image).toBe('registry/crc-agent:1');
    expect(container!.command).toBeUndefined();
    expect(container!.env).toEqual([
      { name: 'INSTANCE_NAME', value: 'pool-0' },
      { name: 'INSTANCE_NAMESPACE', value: 'ci' },
      { name: 'INSTANCE_UID', value: 'uid-1' },
      { name: 'CRC_SSH_HOST', value: '10.0.0.7' },
      { name: 'CRC_VMI_UID', value: 'vmi-1' },
      { name: 'CRC_SSH_KEY_PATH', value: '/etc/crc-agent/ssh/id_ecdsa' },
      { name: 'CRC_INSTANCE_SSH_KEY_PATH', value: '/etc/crc-agent/instance-ssh/id_ed25519' },
      { name: 'CRC_IDENTITY_PATH', value: '/etc/crc-agent/identity' },
      { name: 'PULL_SECRET_PATH', value: '/etc/crc-agent/pull-secret/.dockerconfigjson' },
      { name: 'CRC_API_HOSTNAME', value: 'api-pool-0-abc.apps.example' },
    ]);
    expect(container!.volumeMounts).toEqual([
      { name: 'pull-secret', mountPath: '/etc/crc-agent/pull-secret', readOnly: true },
      { name: 'bundle-ssh-key', mountPath: '/etc/crc-agent/ssh', readOnly: true },
      { name: 'identity', mountPath: '/etc/crc-agent/identity', readOnly: true },
      { name: 'instance-ssh-key', mountPath: '/etc/crc-agent/instance-ssh', readOnly: true },
    ]);
    expect(pod.volumes).toEqual([
      { name: 'pull-secret', secret: { secretName: 'pull-secret' } },
      {
        name: 'bundle-ssh-key',
        secret: {
          secretName: 'bundle-key',
          items: [{ key: 'ssh-privatekey', path: 'id_ecdsa' }],
        },
      },
      { name: 'identity', secret: { secretName: 'pool-0-crc-identity' } },
      {
        name: 'instance-ssh-key',
        secret: {
          secretName: 'pool-0-crc-ssh-key',
          items: [{ key: 'id_ed25519', path: 'id_ed25519' }],
        },
      },
    ]);
  });

  it('gives the agent the VMI reads by binding and its one handoff Secret by a Role (ADR 0010)', () => {
    const subjects = [
      { kind: 'ServiceAccount', name: 'pool-0-crc-agent-6c6afab7c2cf', namespace: 'ci' },
    ];
    expect(buildAgentBinding(instance(), 'crc-agent-instance-role')).toMatchObject({
      metadata: meta('pool-0-crc-agent-binding-6c6afab7c2cf'),
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'crc-agent-instance-role',
      },
      subjects,
    });
    expect(buildHandoffRole(instance(), 'vmi-1')).toMatchObject({
      kind: 'Role',
      metadata: meta('pool-0-crc-agent-handoff-6c6afab7c2cf'),
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          verbs: ['get', 'update'],
          resourceNames: ['pool-0-crc-raw-kubeconfig-vmi-1'],
        },
        {
          apiGroups: ['guestcluster.opdev.io'],
          resources: ['clusterinstances'],
          verbs: ['get'],
          resourceNames: ['pool-0'],
        },
      ],
    });
    expect(buildHandoffBinding(instance())).toMatchObject({
      metadata: meta('pool-0-crc-agent-handoff-binding-6c6afab7c2cf'),
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'pool-0-crc-agent-handoff-6c6afab7c2cf',
      },
      subjects,
    });
    expect(buildHandoffSecret(instance(), 'vmi-1')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        ...meta('pool-0-crc-raw-kubeconfig-vmi-1'),
        labels: { 'opdev.io/managed-by': 'crc-agent', 'opdev.io/cluster-instance': 'pool-0' },
      },
      type: 'Opaque',
    });
  });
});
