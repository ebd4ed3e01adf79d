import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../client/api/resources.js';
import {
  buildApiRoute as buildCrcRoute,
  buildApiService,
  buildDataVolume,
  buildVirtualMachine,
} from '../../operator/controllers/clusterinstance/crc/crc-builders.js';
import {
  buildApiRoute as buildHcpRoute,
  buildHostedCluster,
  buildNodePool,
} from '../../operator/controllers/clusterinstance/hcp/hcp-builders.js';
import { plannedPlacement } from '../../operator/controllers/clusterinstance/hcp/hcp-placement.js';
import type { KubeObject, Stored, StoredCluster } from '../../operator/kube/objects.js';
import type { CRCBundle } from '../../client/api/resources.js';
import { buildTargetVm } from '../../operator/controllers/bundlebuild/build-vms.js';
import { buildNames } from '../../operator/controllers/bundlebuild/build-names.js';
import { CRC_KUBEVIRT_V1 } from '../../operator/api/vm-profile.js';
import { useStandIns } from '../../dev/control-plane/platform-crds/platform-crds.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';

const { ns } = useWorld({ namespace: 'builder-schemas' });

const instance = (type: 'crc' | 'hcp'): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: {
    namespace: 'ci',
    name: 'pool-0',
    uid: '5d3b3c7e-1f0a-4c55-9d43-7c5e0f9a4b21',
    resourceVersion: '1',
  },
  spec: {
    type,
    template: {
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.10-multi',
      crcVersion: type === 'crc' ? '4.16.0' : undefined,
      ocpVersion: '4.16.10',
      memory: '16Gi',
      cores: 4,
      storageClassName: 'fast',
      vmNodeSelector: { zone: 'a' },
    },
  },
});

/** In the test's namespace, without owner references to an instance that does not exist. */
const here = (object: KubeObject): KubeObject => ({
  ...object,
  metadata: { ...object.metadata, namespace: ns.name, ownerReferences: undefined },
});

const placement = plannedPlacement(instance('hcp'));
const BUILT = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'custom', uid: '0b1f5e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b', resourceVersion: '1' },
  spec: { arch: 'amd64', build: { releaseImage: 'quay.io/example/release@sha256:00' } },
} as unknown as StoredCluster<CRCBundle>;
const HOST = 'api-pool-0-0123456789abcdef.apps.example.test';

/**
 * Every object the operator's builders make, against the platform's real CRDs (or the closed
 * stand-ins) with strict field validation: a field the real schema does not know would be
 * dropped silently on a management cluster, a value it refuses would fail there.
 */
describe("the operator's platform objects", () => {
  it.each<[string, () => KubeObject]>([
    [
      'the crc root disk, imported',
      () => buildDataVolume(instance('crc'), { http: 'https://mirror.example.test/crc.qcow2' }),
    ],
    [
      'the crc root disk, cloned',
      () =>
        buildDataVolume(instance('crc'), {
          pvc: { namespace: 'operators', name: 'golden' },
          virtualSizeBytes: 31 * 2 ** 30,
          sourceRequest: '35Gi',
        }),
    ],
    ['the crc VirtualMachine', () => buildVirtualMachine(instance('crc'))],
    [
      "the crc VirtualMachine of a built bundle, on the bundle's VM profile",
      () => buildVirtualMachine(instance('crc'), CRC_KUBEVIRT_V1),
    ],
    [
      "a bundle build's target VM, on the same profile with the install's clock offset",
      () =>
        buildTargetVm(BUILT, 'a1b2c3', 'ci', buildNames('custom', 'a1b2c3'), {
          profile: CRC_KUBEVIRT_V1,
          dnsIp: '172.30.0.10',
          clockOffsetSeconds: -86_400,
          cdrom: true,
          runStrategy: 'RerunOnFailure',
        }),
    ],
    ['the crc API Service', () => buildApiService(instance('crc'))],
    ['the crc API Route', () => buildCrcRoute(instance('crc'), HOST)],
    [
      'the HostedCluster',
      () =>
        buildHostedCluster(instance('hcp'), {
          placement,
          hostname: HOST,
          pullSecretName: 'pull-secret',
          sshKeySecretName: 'ssh',
        }),
    ],
    [
      'the NodePool',
      () => buildNodePool(instance('hcp'), placement, { metadata: { name: 'hc', uid: 'hc-uid' } }),
    ],
    ['the hcp API Route', () => buildHcpRoute(instance('hcp'), placement, HOST)],
  ])('%s passes the real schema strictly', async (_, build) => {
    const { stdout } = await kubectl(
      ['create', '-n', ns.name, '--dry-run=server', '--validate=strict', '-o', 'name', '-f', '-'],
      JSON.stringify(here(build())),
    );
    expect(stdout.trim()).not.toBe('');
  });

  // The open stand-ins (GUESTCLUSTER_PLATFORM_CRDS=stand-ins) know every field.
  (useStandIns() ? it.skip : it)('would show a field the real schema does not know', async () => {
    const vm = here(buildVirtualMachine(instance('crc'))) as KubeObject & {
      spec: { template: { spec: Record<string, unknown> } };
    };
    vm.spec.template.spec.evictionPolicy = 'None';
    const refused = await kubectl(
      ['create', '-n', ns.name, '--dry-run=server', '--validate=strict', '-f', '-'],
      JSON.stringify(vm),
    ).catch((error: unknown) => error);
    expect(String(refused)).toContain('unknown field "spec.template.spec.evictionPolicy"');
  });
});
