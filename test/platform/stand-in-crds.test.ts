import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../client/api/resources.js';
import {
  buildHostedCluster,
  buildNodePool,
} from '../../operator/controllers/clusterinstance/hcp/hcp-builders.js';
import { plannedPlacement } from '../../operator/controllers/clusterinstance/hcp/hcp-placement.js';
import type { KubeObject, Stored } from '../../operator/kube/objects.js';
import { installCrds } from '../../dev/control-plane/install-crds.js';
import type { CrdManifest } from '../../dev/control-plane/platform-crds/crd-manifest.js';
import { upstreamFolderCrds } from '../../dev/control-plane/platform-crds/upstream-folder-crds.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import type { HostedClusterObject } from '../../dev/platform/hypershift/hosted-cluster-status.js';
import {
  hostedClusterConditions,
  hostedClusterVersion,
} from '../../dev/platform/hypershift/hosted-cluster-status.js';
import { HYPERSHIFT_STAND_INS } from '../../dev/control-plane/platform-crds/stand-in/hypershift.js';
import { OPERAND_STAND_INS } from '../../dev/control-plane/platform-crds/stand-in/operands.js';
import { standInCrd } from '../../dev/control-plane/platform-crds/stand-in/schema.js';

const { ns } = useWorld({ namespace: 'stand-ins' });

/**
 * The closed stand-ins stand for the real HyperShift, HCO and MCE CRDs where those are not at
 * hand. Here both serve at once: the stand-ins under groups of their own (`<group>.stand-in.test`),
 * the real ones (from the upstream CRD folder) under theirs, and what the operator and the
 * simulated platform write must fare the same with both.
 */
const STAND_IN_SUFFIX = '.stand-in.test';
const real = (await upstreamFolderCrds()) !== undefined;

function renamed(crd: CrdManifest): CrdManifest {
  const group = `${crd.spec.group}${STAND_IN_SUFFIX}`;
  return {
    ...crd,
    metadata: { name: `${crd.spec.names.plural}.${group}` },
    spec: { ...crd.spec, group },
  };
}

function asStandIn(object: KubeObject): KubeObject {
  const [group, version] = object.apiVersion!.split('/');
  return { ...object, apiVersion: `${group}${STAND_IN_SUFFIX}/${version}` };
}

/** What the apiserver says to a strict server-side dry run of a create: '' when accepted. */
async function refusal(object: KubeObject): Promise<string> {
  try {
    await kubectl(
      ['create', '-n', ns.name, '--dry-run=server', '--validate=strict', '-f', '-'],
      JSON.stringify(object),
    );
    return '';
  } catch (error) {
    // The message names the object's group; compare the rest.
    return String((error as Error).message)
      .replace(/^[\s\S]*?exited with 1: /, '')
      .replaceAll(STAND_IN_SUFFIX, '');
  }
}

const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: {
    namespace: 'ci',
    name: 'pool-0',
    uid: '5d3b3c7e-1f0a-4c55-9d43-7c5e0f9a4b21',
    resourceVersion: '1',
  },
  spec: {
    type: 'hcp',
    template: {
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.10-multi',
      ocpVersion: '4.16.10',
      memory: '8Gi',
      cores: 2,
      rootVolumeSize: '40Gi',
      storageClassName: 'fast',
    },
  },
};

(real ? describe : describe.skip)('the closed stand-ins and the real CRDs', () => {
  const placement = plannedPlacement(instance);
  const withNamespace = <T extends KubeObject>(object: T): T => ({
    ...object,
    metadata: { ...object.metadata, namespace: ns.name, ownerReferences: undefined },
  });
  const hostedCluster = (): KubeObject & { spec: Record<string, unknown> } =>
    withNamespace(
      buildHostedCluster(instance, {
        placement,
        hostname: 'api-pool-0.apps.example.test',
        pullSecretName: 'pull-secret',
        sshKeySecretName: 'ssh',
      }),
    ) as KubeObject & { spec: Record<string, unknown> };

  beforeAll(async () => {
    const crds = [...HYPERSHIFT_STAND_INS, ...OPERAND_STAND_INS].map(standInCrd).map(renamed);
    await installCrds(ns.kubeConfig, crds);
  });
  afterAll(async () => {
    for (const kind of [...HYPERSHIFT_STAND_INS, ...OPERAND_STAND_INS])
      await kubectl(['delete', 'crd', `${kind.plural}.${kind.group}${STAND_IN_SUFFIX}`]);
  });

  it.each([
    ['the HostedCluster the operator builds', hostedCluster],
    [
      'the NodePool the operator builds',
      () =>
        withNamespace(
          buildNodePool(instance, placement, {
            metadata: { name: placement.hostedClusterName, uid: 'hc-uid' },
          }),
        ),
    ],
    [
      'the HyperConverged of the simulated platform',
      () => ({
        apiVersion: 'hco.kubevirt.io/v1beta1',
        kind: 'HyperConverged',
        metadata: { name: 'kubevirt-hyperconverged', namespace: ns.name },
        spec: {},
      }),
    ],
  ])('both accept %s under strict field validation', async (_, build) => {
    const object = build();
    expect(await refusal(object)).toBe('');
    expect(await refusal(asStandIn(object))).toBe('');
  });

  it.each([
    [
      'a HostedCluster without a release',
      () => ({ ...hostedCluster(), spec: { ...hostedCluster().spec, release: undefined } }),
      'spec.release: Required value',
    ],
    [
      'a HostedCluster with three services',
      () => ({
        ...hostedCluster(),
        spec: {
          ...hostedCluster().spec,
          services: (hostedCluster().spec.services as unknown[]).slice(0, 3),
        },
      }),
      'spec.services in body should have at least 4 items or 3 for IBMCloud',
    ],
    [
      'a HostedCluster on an unknown platform',
      () => ({ ...hostedCluster(), spec: { ...hostedCluster().spec, platform: { type: 'Moon' } } }),
      'spec.platform.type: Unsupported value: "Moon"',
    ],
    [
      'a NodePool without management',
      () => ({
        apiVersion: 'hypershift.openshift.io/v1beta1',
        kind: 'NodePool',
        metadata: { name: 'np', namespace: ns.name },
        spec: {
          clusterName: 'hc',
          release: { image: 'quay.io/x/release:4.16.10' },
          platform: { type: 'KubeVirt', kubevirt: { rootVolume: { type: 'Persistent' } } },
        },
      }),
      'spec.management: Required value',
    ],
  ])('both refuse %s, naming the field', async (_, build, message) => {
    const object = build();
    const [fromReal, fromStandIn] = [await refusal(object), await refusal(asStandIn(object))];
    expect(fromReal).toContain(message);
    expect(fromStandIn).toContain(message);
  });

  it('both keep the status the simulated HyperShift writes, and scale a NodePool', async () => {
    const nodePool = withNamespace(
      buildNodePool(instance, placement, { metadata: { name: 'hc', uid: 'hc-uid' } }),
    );
    for (const np of [nodePool, asStandIn(nodePool)]) {
      const plural = `nodepools.${np.apiVersion!.split('/')[0]}`;
      await kubectl(['create', '-n', ns.name, '-f', '-'], JSON.stringify(np));
      await kubectl(['scale', '-n', ns.name, plural, np.metadata!.name!, '--replicas=3']);
      const { stdout } = await kubectl([
        'get',
        '-n',
        ns.name,
        plural,
        np.metadata!.name!,
        '-o',
        'jsonpath={.spec.replicas}',
      ]);
      expect(stdout).toBe('3');
    }
    for (const hc of [hostedCluster(), asStandIn(hostedCluster())]) {
      const plural = `hostedclusters.${hc.apiVersion!.split('/')[0]}`;
      const created = JSON.parse(
        (await kubectl(['create', '-n', ns.name, '-o', 'json', '-f', '-'], JSON.stringify(hc)))
          .stdout,
      ) as HostedClusterObject;
      const status = {
        version: hostedClusterVersion(created, true),
        kubeconfig: { name: 'admin-kubeconfig' },
        controlPlaneEndpoint: { host: '127.0.0.1', port: 6443 },
        conditions: hostedClusterConditions(created, true, ['', '']),
      };
      // A whole status, as HyperShift's controller writes it (null kept where a patch drops it).
      await kubectl(
        ['replace', '-n', ns.name, '--subresource=status', '-f', '-'],
        JSON.stringify({ ...created, status }),
      );
      const { stdout } = await kubectl([
        'get',
        '-n',
        ns.name,
        plural,
        hc.metadata!.name!,
        '-o',
        'jsonpath={.status.version.history[0].state} {.status.controlPlaneEndpoint.port}',
      ]);
      expect(stdout).toBe('Completed 6443');
    }
  });
});
