import { beforeAll, describe, expect, it } from '@jest/globals';
import { FINALIZER_INSTANCE_CLEANUP } from '../../operator/api/labels.js';
import type { ClusterInstance } from '../../client/api/resources.js';
import { INSTANCES, SECRETS } from '../../client/api/resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../operator/api/platform-resources.js';
import { hostedClusterName } from '../../operator/controllers/clusterinstance/hcp/hcp-naming.js';
import { isNotFound } from '../../client/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { enableNamespace } from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { createPullSecret, readyCondition } from '../support/fixtures/hcp-fixtures.js';

const world = useWorld({
  namespace: 'place',
  enabled: true,
  platform: { hcp: true },
  operator: true,
});
const { ns } = world;

function hcpInstance(
  namespace: string,
  name: string,
  template: Partial<ClusterInstance['spec']['template']> = {},
  type: 'hcp' | 'crc' = 'hcp',
): ClusterInstance {
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: { name, namespace },
    spec: {
      type,
      template: {
        releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.10-multi',
        ocpVersion: '4.16.10',
        memory: '8Gi',
        cores: 2,
        ...template,
      },
    },
  };
}

const until = (
  namespace: string,
  name: string,
  check: (i: ClusterInstance | undefined) => boolean,
  description: string,
): Promise<ClusterInstance | undefined> =>
  waitFor<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace,
    name,
    until: check,
    timeoutMs: 120_000,
    description,
  });

async function absent(type: typeof SECRETS, name: string, namespace?: string): Promise<boolean> {
  try {
    await ns.api.get(type, name, namespace);
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

describe('hcp placement, naming and failures on the real control plane', () => {
  /** A namespace of this test (the platform and operator act in `<ns>-…` too), opted in, with a pull secret. */
  const addNamespace = async (name: string, enabled = true): Promise<void> => {
    await world.addNamespace(name, { enabled });
    await createPullSecret(ns.api, name);
  };

  beforeAll(async () => {
    await createPullSecret(ns.api, ns.name);
  });

  it('keeps tenant/a-b and tenant-a/b apart: both become Ready with their own control plane namespaces', async () => {
    const tenantA = `${ns.name}-a`;
    await addNamespace(tenantA);
    await ns.api.create(INSTANCES, hcpInstance(ns.name, 'a-b'));
    await ns.api.create(INSTANCES, hcpInstance(tenantA, 'b'));
    const ready = (i: ClusterInstance | undefined): boolean => i?.status?.phase === 'Ready';
    const [first, second] = await Promise.all([
      until(ns.name, 'a-b', ready, 'a-b Ready'),
      until(tenantA, 'b', ready, 'b Ready'),
    ]);
    // Named after the instance, both HostedClusters would have wanted `<ns>-a-b`.
    const cp = (i: ClusterInstance): string =>
      `${i.status!.hyperShift!.hostedClusterNamespace}-${i.status!.hyperShift!.hostedClusterName}`;
    expect(cp(first!)).not.toBe(cp(second!));
    expect(cp(first!)).toBe(`${ns.name}-${hostedClusterName(ns.name, 'a-b')}`);
    expect(cp(second!)).toBe(`${tenantA}-${hostedClusterName(tenantA, 'b')}`);
    expect(first!.status!.apiEndpoint).not.toBe(second!.status!.apiEndpoint);
  });

  it('serves an instance in a 43-character namespace and refuses one in a 44-character namespace', async () => {
    const ns43 = `${ns.name}-${'x'.repeat(43 - ns.name.length - 1)}`;
    const ns44 = `${ns.name}-${'y'.repeat(44 - ns.name.length - 1)}`;
    await addNamespace(ns43);
    await addNamespace(ns44);
    await ns.api.create(INSTANCES, hcpInstance(ns43, 'pool-0'));
    await ns.api.create(INSTANCES, hcpInstance(ns44, 'pool-0'));
    const fits = await until(ns43, 'pool-0', (i) => i?.status?.phase === 'Ready', '43: Ready');
    expect(fits!.status!.hyperShift!.hostedClusterName).toMatch(/^gc-[0-9a-f]{16}$/);
    expect(`${ns43}-${fits!.status!.hyperShift!.hostedClusterName}`).toHaveLength(63);
    const refused = await until(ns44, 'pool-0', (i) => i?.status?.phase === 'Failed', '44: Failed');
    expect(readyCondition(refused)).toMatchObject({
      status: 'False',
      reason: 'HCPPlacementConflict',
      message: expect.stringContaining(`namespace "${ns44}" has 44 characters`),
    });
    expect(refused!.status!.hyperShift).toBeUndefined();
  });

  it.each([
    ['an existing namespace where the control plane would go', 'squatted'],
    ['a foreign HostedCluster of the same name', 'shadowed'],
  ])('refuses %s before anything is created', async (_, name) => {
    const hcName = hostedClusterName(ns.name, name);
    if (name === 'squatted') {
      await world.addNamespace(`${ns.name}-${hcName}`);
    } else {
      // Someone else's, valid as HyperShift's CRD requires.
      const route = { servicePublishingStrategy: { type: 'Route' } };
      await ns.api.create(HOSTED_CLUSTERS, {
        apiVersion: HOSTED_CLUSTERS.apiVersion,
        kind: HOSTED_CLUSTERS.kind,
        metadata: { name: hcName, namespace: ns.name },
        spec: {
          release: { image: 'quay.io/someone/else:4.15.0' },
          pullSecret: { name: 'their-pull-secret' },
          platform: { type: 'KubeVirt' },
          networking: { clusterNetwork: [{ cidr: '10.132.0.0/14' }] },
          etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume' } } },
          services: ['APIServer', 'OAuthServer', 'Konnectivity', 'Ignition'].map((service) => ({
            service,
            ...route,
          })),
        },
      } as KubeObject);
    }
    await ns.api.create(INSTANCES, hcpInstance(ns.name, name));
    const failed = await until(
      ns.name,
      name,
      (i) => i?.status?.phase === 'Failed',
      `${name} Failed`,
    );
    expect(readyCondition(failed)).toMatchObject({
      status: 'False',
      reason: 'HCPPlacementConflict',
    });
    expect(readyCondition(failed)!.message).toContain(hcName);
    expect(failed!.status!.hyperShift).toBeUndefined();
    expect(failed!.status!.apiEndpoint).toBeUndefined();
    expect(await absent(SECRETS, `${name}-kas-serving-cert`, ns.name)).toBe(true);
    expect(await absent(SECRETS, `${name}-kubeconfig`, ns.name)).toBe(true);
    expect(await absent(NODE_POOLS, `${hcName}-workers`, ns.name)).toBe(true);
    if (name === 'squatted') expect(await absent(HOSTED_CLUSTERS, hcName, ns.name)).toBe(true);
    // Nothing was created, so nothing holds up deletion.
    await ns.api.delete(INSTANCES, name, ns.name);
    await until(ns.name, name, (i) => i === undefined, `${name} gone`);
    if (name === 'shadowed') {
      const foreign = await ns.api.get<KubeObject>(HOSTED_CLUSTERS, hcName, ns.name);
      expect(foreign.metadata!.deletionTimestamp).toBeUndefined();
      await ns.api.delete(HOSTED_CLUSTERS, hcName, ns.name);
    }
  });

  it('fails an instance without its pull secret, with the reason and the Secret named', async () => {
    await ns.api.create(
      INSTANCES,
      hcpInstance(ns.name, 'nopull', { pullSecretRef: { name: 'absent' } }),
    );
    const failed = await until(
      ns.name,
      'nopull',
      (i) => i?.status?.phase === 'Failed',
      'nopull Failed',
    );
    expect(readyCondition(failed)).toMatchObject({
      reason: 'InvalidPullSecret',
      message: `pull secret ${ns.name}/absent not found; diagnostics in ConfigMap ${ns.name}/nopull-diagnostics-${failed!.metadata!.uid!.slice(0, 8)}`,
    });
  });

  it('reports a HostedCluster that never becomes Available, and tears it down', async () => {
    world.platform.neverAvailable.add('stuck');
    await ns.api.create(INSTANCES, hcpInstance(ns.name, 'stuck'));
    const waiting = await until(
      ns.name,
      'stuck',
      (i) =>
        readyCondition(i)?.reason === 'HostedClusterNotAvailable' &&
        !!readyCondition(i)?.message.includes('WaitingForAvailable'),
      'stuck waiting for its HostedCluster',
    );
    expect(waiting!.status!.phase).toBe('Provisioning');
    expect(readyCondition(waiting)!.message).toContain(
      waiting!.status!.hyperShift!.hostedClusterName,
    );
    expect(await absent(SECRETS, 'stuck-kubeconfig', ns.name)).toBe(true);
    await ns.api.delete(INSTANCES, 'stuck', ns.name);
    await until(ns.name, 'stuck', (i) => i === undefined, 'stuck torn down');
    expect(
      await absent(HOSTED_CLUSTERS, waiting!.status!.hyperShift!.hostedClusterName!, ns.name),
    ).toBe(true);
  });

  it('waits for the NodePool to reach its replicas', async () => {
    world.platform.noWorkers.add('few');
    await ns.api.create(INSTANCES, hcpInstance(ns.name, 'few', { nodePoolReplicas: 3 }));
    const waiting = await until(
      ns.name,
      'few',
      (i) => readyCondition(i)?.reason === 'NodePoolNotReady',
      'few waiting for its workers',
    );
    const nodePool = waiting!.status!.hyperShift!.nodePoolNames![0]!;
    // HyperShift's AllMachinesReady follows, once its machines are looked at.
    expect(readyCondition(waiting)!.message).toMatch(
      new RegExp(
        `^NodePool ${ns.name}/${nodePool} has 0 of 3 replica\\(s\\)($|: AllMachinesReady=False)`,
      ),
    );
    world.platform.noWorkers.delete('few');
    // The workers join: a NodePool status change, and the instance follows.
    await ns.api.patch(
      NODE_POOLS,
      { name: nodePool, namespace: ns.name },
      { metadata: { labels: { joined: 'true' } } },
    );
    await until(ns.name, 'few', (i) => i?.status?.phase === 'Ready', 'few Ready');
  });

  it("waits with the NodePool's AllMachinesReady message while its workers fit no node", async () => {
    await ns.api.create(
      INSTANCES,
      hcpInstance(ns.name, 'nowhere', {
        nodePoolReplicas: 2,
        vmNodeSelector: { 'example.test/zone': 'nowhere' },
      }),
    );
    const scheduler =
      "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. " +
      'no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
    const expected = (nodePool: string): string =>
      `NodePool ${ns.name}/${nodePool} has 0 of 2 replica(s): AllMachinesReady=False (Unschedulable): ` +
      `2 of 2 machines are not ready; Machine ${nodePool}-0: Unschedulable: ${scheduler}; ` +
      `Machine ${nodePool}-1: Unschedulable: ${scheduler}`;
    // Each machine is scheduled on its own: the message is complete once both have been tried.
    const waiting = await until(
      ns.name,
      'nowhere',
      (i) => {
        const nodePool = i?.status?.hyperShift?.nodePoolNames?.[0];
        return !!nodePool && readyCondition(i)?.message === expected(nodePool);
      },
      "nowhere waiting with both of the NodePool's machines unschedulable",
    );
    expect(readyCondition(waiting)).toMatchObject({ reason: 'NodePoolNotReady' });
    expect(waiting!.status!.phase).toBe('Provisioning');
  });

  it('says VersionMismatch when the HostedCluster reports another version than the template asks for', async () => {
    await ns.api.create(INSTANCES, hcpInstance(ns.name, 'older', { ocpVersion: '4.16.9' }));
    const ready = await until(ns.name, 'older', (i) => i?.status?.phase === 'Ready', 'older Ready');
    expect(ready!.status!.ocpVersion).toBe('4.16.10');
    expect(ready!.status!.conditions!.find((c) => c.type === 'VersionMismatch')).toMatchObject({
      status: 'True',
      reason: 'OCPVersionMismatch',
      message: 'requested OCPVersion "4.16.9" but observed "4.16.10"',
    });
  });

  it('waits for the namespace opt-in without creating anything, hcp and crc alike', async () => {
    const closed = `${ns.name}-closed`;
    await addNamespace(closed, false);
    await ns.api.create(INSTANCES, hcpInstance(closed, 'waiting'));
    const crcInstance = hcpInstance(closed, 'crc-0', { crcVersion: '4.16.0' }, 'crc');
    delete crcInstance.spec.template.releaseImage;
    await ns.api.create(INSTANCES, crcInstance);
    for (const name of ['waiting', 'crc-0']) {
      const waiting = await until(
        closed,
        name,
        (i) => readyCondition(i)?.reason === 'NamespaceDisabled',
        `opt-in wait of ${name}`,
      );
      expect(
        waiting!.status!.conditions!.find((c) => c.type === 'ProvisioningAllowed'),
      ).toMatchObject({ status: 'False', reason: 'NamespaceDisabled' });
      expect(waiting!.status!.hyperShift).toBeUndefined();
      expect(waiting!.status!.crc?.bootKey).toBeUndefined();
    }
    await enableNamespace(ns.api, closed);
    await until(closed, 'waiting', (i) => i?.status?.phase === 'Ready', 'Ready after the opt-in');
    // The crc instance goes on to its next wait: the bundle of its version does not exist here.
    const crc = await until(
      closed,
      'crc-0',
      (i) => readyCondition(i)?.reason === 'CRCBackingPending',
      'the crc instance to wait for its bundle',
    );
    expect(crc!.metadata!.finalizers).toContain(FINALIZER_INSTANCE_CLEANUP);
  });
});
