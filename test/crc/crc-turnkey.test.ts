import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EVENTS, JOBS, PVCS } from '../../client/api/core-resources.js';
import type { ClusterInstance, ClusterPool, CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES, NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { agentJobName } from '../../operator/controllers/clusterinstance/crc/crc-naming.js';
import { quantityBytes } from '../../operator/kube/quantity.js';
import type { Job, PersistentVolumeClaim, Secret } from '../../operator/kube/workloads.js';
import { TEST_DISK_BYTES } from '../../dev/platform/bundles/test-bundle.js';
import type { TestBundle } from '../../dev/platform/bundles/test-bundle.js';
import { TestMirror } from '../../dev/platform/bundles/bundle-fixtures.js';
import { instancesTornDown } from '../support/fixtures/pool-fixtures.js';
import type { DataVolumeObject, VmiObject } from '../../dev/platform/host/platform-kinds.js';
import { DATA_VOLUMES, VIRTUAL_MACHINE_INSTANCES } from '../../dev/platform/host/platform-kinds.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { createPullSecret } from '../support/pull-secret.js';
import ssh2 from 'ssh2';

/*
 * The turnkey path end to end: pools that name a crcVersion get one CRCBundle, prepared by the
 * real bundle controller from a local mirror into the operator namespace, and their instances
 * clone its golden disk and boot with a copy of its key, bound to the bundle when first seen.
 * A bundle whose key was replaced afterwards is refused, not followed.
 */

const world = useWorld({
  namespace: 'crc-turnkey',
  enabled: true,
  /** Where golden disks, bundle keys and prep Jobs live. */
  operatorNamespace: 'crc-turnkey-op',
  // No guest gets past the agent here: the API that would cost a control plane is not needed.
  platform: { crc: { guestApi: 'never-ready' } },
});
const { ns, operatorNs } = world;

type Condition = { type: string; status: string; reason: string; message: string };
const conditionOf = (instance: ClusterInstance | undefined, type: string): Condition | undefined =>
  instance?.status?.conditions?.find((c) => c.type === type);
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('turnkey crc pools clone the golden disk of one CRCBundle', () => {
  let mirror: TestMirror;
  let suffix: string;
  let version: string;
  let bundleName: string;
  let published: TestBundle;

  beforeAll(async () => {
    suffix = ns.name.split('-').pop()!;
    // Unique per run: CRCBundles are cluster-scoped and other files use this control plane too.
    version = `4.19.0-${suffix}`;
    bundleName = `crc-${version}-amd64`;
    mirror = await TestMirror.start();
    published = await mirror.publish(version);
    await createPullSecret(ns.api, ns.name);
    await world.startOperator({
      config: { crcBundleMirrorUrl: mirror.baseUrl },
      bundles: true,
    });
  });

  afterAll(async () => {
    await ns.api.delete(INSTANCES, 'direct', ns.name).catch(() => undefined);
    for (const pool of ['first', 'second', 'third'])
      await ns.api.delete(POOLS, pool, ns.name).catch(() => undefined);
    await instancesTornDown(ns.kubeConfig, ns.name);
    if (bundleName) await ns.api.delete(BUNDLES, bundleName).catch(() => undefined);
    await mirror?.stop();
  });

  const pool = (name: string): ClusterPool => ({
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name, namespace: ns.name },
    spec: {
      type: 'crc',
      minSize: 1,
      maxSize: 1,
      // Smaller than the golden disk: the clone must grow to its virtual size and its PVC's request.
      template: {
        crcVersion: version,
        ocpVersion: '4.19.0',
        memory: '16Gi',
        cores: 4,
        rootVolumeSize: '8Mi',
      },
    },
  });

  const waitInstance = (
    name: string,
    until: (instance: ClusterInstance | undefined) => boolean,
    description: string,
  ): Promise<ClusterInstance> =>
    waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name,
      until,
      description: `ClusterInstance ${name}: ${description}`,
      timeoutMs: 120_000,
    }).then((i) => i!);

  /** The agent stage was reached: the VMI runs from the clone and its agent Job exists. */
  const agentStarted = (i: ClusterInstance | undefined): boolean =>
    !!i?.status?.crc?.vmiUID && !!conditionOf(i, 'CRCAgent');

  const instances = ['first-0', 'second-0'];

  it('creates one bundle for two pools, and the instances of both pools clone its golden PVC with its key', async () => {
    await ns.api.create(POOLS, pool('first'));
    await ns.api.create(POOLS, pool('second'));
    const bundle = await waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name: bundleName,
      until: (b) => b?.status?.phase === 'Ready',
      description: `CRCBundle ${bundleName} Ready`,
      timeoutMs: 120_000,
    });
    const bundles = await ns.api.list<CRCBundle>(BUNDLES);
    expect(
      bundles.items.filter((b) => b.spec.version === version).map((b) => b.metadata!.name),
    ).toEqual([bundleName]);
    const golden = bundle!.status!.qcow2PVCRef!.name;
    expect(bundle!.status!.qcow2PVCNamespace).toBe(operatorNs.name);
    expect(bundle!.status!.diskVirtualSizeBytes).toBe(TEST_DISK_BYTES);
    const bundleKey = await ns.api.get<Secret>(SECRETS, `${bundleName}-ssh-key`, operatorNs.name);

    for (const name of instances) {
      const instance = await waitInstance(name, agentStarted, 'the agent stage');
      expect(instance.status!.crc!.bootKey).toEqual({
        bundleUID: bundle!.metadata!.uid,
        bundleSHA256: published.archiveSha256,
        pvcNamespace: operatorNs.name,
        pvcName: golden,
        pvcUID: expect.any(String),
        secretNamespace: operatorNs.name,
        secretName: `${bundleName}-ssh-key`,
        secretUID: bundleKey.metadata!.uid,
        keySHA256: sha256(Buffer.from(published.sshPrivateKey)),
      });

      const disk = await ns.api.get<DataVolumeObject>(DATA_VOLUMES, `${name}-rootdisk`, ns.name);
      expect(disk.spec!.source).toEqual({ pvc: { namespace: operatorNs.name, name: golden } });
      const size = (disk.spec as { storage?: { resources?: { requests?: { storage?: string } } } })
        .storage?.resources?.requests?.storage;
      expect(quantityBytes(size ?? '')).toBeGreaterThanOrEqual(TEST_DISK_BYTES);
      // CDI's CSI clone refuses a target smaller than its source: never below the golden PVC.
      const goldenClaim = await ns.api.get<PersistentVolumeClaim>(PVCS, golden!, operatorNs.name);
      expect(quantityBytes(size ?? '')).toBeGreaterThanOrEqual(
        quantityBytes(goldenClaim.spec.resources!.requests!.storage!),
      );
      expect(disk.status?.phase).toBe('Succeeded');

      // The instance's own copy of the key, the one its agent Job mounts.
      const copy = await ns.api.get<Secret>(SECRETS, `${name}-crc-boot-key`, ns.name);
      expect(Buffer.from(copy.data!.id_ecdsa!, 'base64').toString()).toBe(published.sshPrivateKey);
      expect(copy.metadata!.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'ClusterInstance',
          name,
          uid: instance.metadata!.uid,
          controller: true,
        }),
      ]);
      const job = await ns.api.get<Job>(
        JOBS,
        agentJobName(name, instance.status!.crc!.vmiUID!),
        ns.name,
      );
      const keyVolume = job.spec.template.spec.volumes!.find((v) => v.name === 'bundle-ssh-key');
      expect(keyVolume!.secret!.secretName).toBe(`${name}-crc-boot-key`);
    }
  });

  it('keeps booting from its own key copy after the bundle key is replaced, and refuses to take the new one', async () => {
    const name = 'first-0';
    const before = await ns.api.get<ClusterInstance>(INSTANCES, name, ns.name);
    const binding = before.status!.crc!.bootKey!;

    // Someone replaces the bundle's key Secret with one for another disk.
    const other = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    await ns.api.delete(SECRETS, binding.secretName, operatorNs.name);
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: binding.secretName, namespace: operatorNs.name },
      type: 'Opaque',
      data: { id_ecdsa: b64(other.private) },
    });

    // A new VMI: the instance's copy still holds the key its cloned disk accepts.
    const oldVmi = before.status!.crc!.vmiUID!;
    await ns.api.delete(VIRTUAL_MACHINE_INSTANCES, name, ns.name);
    const vmi = await waitFor<VmiObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINE_INSTANCES,
      namespace: ns.name,
      name,
      until: (v) => !!v && v.metadata!.uid !== oldVmi && !!v.status?.interfaces?.[0]?.ipAddress,
      description: 'a new VMI with an IP',
    });
    const newVmi = vmi!.metadata!.uid!;
    const job = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: agentJobName(name, newVmi),
      until: (j) => j !== undefined,
      description: 'the agent Job of the new VMI',
    });
    const keyVolume = job!.spec.template.spec.volumes!.find((v) => v.name === 'bundle-ssh-key');
    expect(keyVolume!.secret!.secretName).toBe(`${name}-crc-boot-key`);
    const copy = await ns.api.get<Secret>(SECRETS, `${name}-crc-boot-key`, ns.name);
    expect(Buffer.from(copy.data!.id_ecdsa!, 'base64').toString()).toBe(published.sshPrivateKey);

    // Without its copy, the instance would need the bundle's key again: it refuses the new one.
    await ns.api.delete(SECRETS, `${name}-crc-boot-key`, ns.name);
    const refused = await waitInstance(
      name,
      (i) =>
        conditionOf(i, 'Ready')?.message.includes('changed since this instance was created') ??
        false,
      'refusing the changed bundle key',
    );
    expect(refused.status!.phase).toBe('Provisioning');
    expect(conditionOf(refused, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'BootKeyUnavailable',
      message: `CRCBundle ${bundleName} disk or boot SSH key changed since this instance was created; refusing recovery`,
    });
    expect(refused.status!.crc!.bootKey).toEqual(binding);
    await expect(ns.api.get(SECRETS, `${name}-crc-boot-key`, ns.name)).rejects.toThrow();
  });

  describe('a bundle that names its consumers (spec.consumers.namespaceSelector)', () => {
    const selector = { matchLabels: { 'example.test/team': 'blue' } };
    type CoreEvent = KubeObject & { type: string; reason: string; message: string };
    const warned = (object: string) =>
      waitForList<CoreEvent & { involvedObject: { name: string } }>(ns.kubeConfig, {
        type: EVENTS,
        namespace: ns.name,
        until: (items) =>
          items.some((e) => e.involvedObject.name === object && e.reason === 'CRCBundleNotAllowed'),
        description: `a CRCBundleNotAllowed Event on ${object}`,
      }).then((items) =>
        items.find((e) => e.involvedObject.name === object && e.reason === 'CRCBundleNotAllowed'),
      );

    beforeAll(async () => {
      // The admin says which namespaces may use the bundle; this one is not among them (yet).
      await ns.api.patch(
        BUNDLES,
        { name: bundleName },
        { spec: { consumers: { namespaceSelector: selector } } },
      );
    });

    it('refuses a pool of another namespace with a condition and an Event, and creates no instance for it', async () => {
      await ns.api.create(POOLS, {
        ...pool('third'),
        spec: {
          ...pool('third').spec,
          template: {
            crcBundleRef: { name: bundleName },
            ocpVersion: '4.19.0',
            memory: '16Gi',
            cores: 4,
          },
        },
      });
      const refused = await waitFor<ClusterPool>(ns.kubeConfig, {
        type: POOLS,
        namespace: ns.name,
        name: 'third',
        until: (p) =>
          p?.status?.conditions?.find((c) => c.type === 'ProvisioningAllowed')?.reason ===
          'CRCBundleNotAllowed',
        description: 'the pool refused its bundle',
      });
      const message = `CRCBundle ${bundleName} may be used only by namespaces its spec.consumers.namespaceSelector selects (example.test/team=blue), and namespace ${ns.name} is not one of them: ask the bundle's admin to select it, or use another bundle`;
      for (const type of ['ProvisioningAllowed', 'CapacityAvailable'])
        expect(refused!.status!.conditions!.find((c) => c.type === type)).toMatchObject({
          status: 'False',
          reason: 'CRCBundleNotAllowed',
          message,
        });
      expect(await warned('third')).toMatchObject({ type: 'Warning', message });
      const instances = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
      expect(instances.items.filter((i) => i.spec.poolRef?.name === 'third')).toEqual([]);
    });

    it('refuses, before any clone, an instance that names a bundle its namespace may not use', async () => {
      await waitFor<CRCBundle>(ns.kubeConfig, {
        type: BUNDLES,
        name: bundleName,
        until: (b) => b?.status?.phase === 'Ready',
        description: `CRCBundle ${bundleName} Ready`,
      });
      // As a pool would make it, which the pool controller now refuses to.
      await ns.api.create(INSTANCES, {
        apiVersion: INSTANCES.apiVersion,
        kind: INSTANCES.kind,
        metadata: { name: 'direct', namespace: ns.name },
        spec: {
          type: 'crc',
          template: {
            crcBundleRef: { name: bundleName },
            ocpVersion: '4.19.0',
            memory: '16Gi',
            cores: 4,
          },
        },
      });
      const refused = await waitInstance(
        'direct',
        (i) => conditionOf(i, 'Ready')?.reason === 'CRCBundleNotAllowed',
        'refusing its bundle',
      );
      expect(refused.status!.phase).toBe('Provisioning');
      expect(conditionOf(refused, 'Ready')!.message).toContain(
        `CRCBundle ${bundleName} may be used only by namespaces its spec.consumers.namespaceSelector selects (example.test/team=blue)`,
      );
      expect(refused.status?.crc?.bootKey).toBeUndefined();
      await expect(ns.api.get(DATA_VOLUMES, 'direct-rootdisk', ns.name)).rejects.toMatchObject({
        status: 404,
      });
      expect(await warned('direct')).toMatchObject({ type: 'Warning' });
    });

    it('lets the pool provision once its namespace is selected', async () => {
      await ns.api.patch(
        NAMESPACES,
        { name: ns.name },
        { metadata: { labels: selector.matchLabels } },
      );
      const instance = await waitInstance(
        'third-0',
        (i) => !!i?.status?.crc?.bootKey,
        'its boot key',
      );
      expect(instance.status!.crc!.bootKey!.pvcName).toBe(`${bundleName}-golden`);
    });
  });
});
