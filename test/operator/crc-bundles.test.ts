import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EVENTS } from '../../client/api/core-resources.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import {
  CONFIG_MAPS,
  JOBS,
  PVCS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../client/api/core-resources.js';
import type { ClusterInstance, ClusterPool, CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES, NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import {
  BundleController,
  PREP_RETRY_BACKOFF,
} from '../../operator/controllers/crcbundle/bundle-controller.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type {
  ConfigMap,
  Job,
  PersistentVolumeClaim,
  Secret,
} from '../../operator/kube/workloads.js';
import type { Manager } from '../../operator/runtime/manager.js';
import type { OperatorConfig } from '../../operator/config.js';
import { testConfig } from '../support/test-config.js';
import { TEST_DISK_BYTES } from '../../dev/platform/bundles/test-bundle.js';
import type { TestBundle } from '../../dev/platform/bundles/test-bundle.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import type { BundlePlatform } from '../../dev/platform/bundles/bundle-fixtures.js';
import {
  crcBundle,
  startBundlePlatform,
  TEST_AGENT_IMAGE,
  TestMirror,
} from '../../dev/platform/bundles/bundle-fixtures.js';
import { enableNamespace, releaseLeasesAndPools } from '../support/fixtures/pool-fixtures.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { impersonating } from '../support/tenant.js';
import { TestClock } from '../support/fixtures/test-clock.js';

const world = useWorld({ namespace: 'bundles' });
const { ns } = world;

const condition = (bundle: CRCBundle | undefined, type: string) =>
  bundle?.status?.conditions?.find((c) => c.type === type);
const phase = (bundle: CRCBundle | undefined): string => bundle?.status?.phase ?? '';

describe('CRCBundle download and prepare', () => {
  let suffix: string;
  let mirror: TestMirror;
  let platform: BundlePlatform;
  let manager: Manager;
  /** The operator's configuration, as the bundle controller gets it. */
  let operatorConfig: OperatorConfig;
  const clock = new TestClock();
  const created: string[] = [];
  const version = (base: string): string => `${base}-${suffix}`;
  const nameOf = (v: string): string => `crc-${v}-amd64`;

  const createBundle = async (name: string, spec: CRCBundle['spec']): Promise<CRCBundle> => {
    created.push(name);
    return ns.api.create(BUNDLES, crcBundle(name, spec, world.scopeLabels));
  };
  const waitForBundle = (name: string, until: (b: CRCBundle | undefined) => boolean) =>
    waitFor<CRCBundle>(ns.kubeConfig, { type: BUNDLES, name, until, timeoutMs: 90_000 });
  const get = <T extends KubeObject>(type: Parameters<typeof ns.api.get>[0], name: string) =>
    ns.api.get<T>(type, name, ns.name);
  const gone = (type: typeof PVCS, name: string): Promise<unknown> =>
    waitFor(ns.kubeConfig, { type, namespace: ns.name, name, until: (o) => o === undefined });
  type BundleEvent = KubeObject & {
    reason: string;
    message: string;
    type: string;
    involvedObject: { name: string };
  };
  /** The bundle's Events (in "default", as for any cluster-scoped object) once `until` holds for them. */
  const eventsOf = (
    bundle: string,
    until: (events: BundleEvent[]) => boolean,
  ): Promise<BundleEvent[]> =>
    waitForList<BundleEvent>(ns.kubeConfig, {
      type: EVENTS,
      namespace: 'default',
      until: (items) => until(items.filter((e) => e.involvedObject.name === bundle)),
      description: `the Events of CRCBundle ${bundle}`,
    }).then((items) => items.filter((e) => e.involvedObject.name === bundle));
  const withReasons =
    (...reasons: string[]) =>
    (events: BundleEvent[]): boolean =>
      reasons.every((reason) => events.some((e) => e.reason === reason));

  beforeAll(async () => {
    suffix = ns.name.split('-').pop()!;
    mirror = await TestMirror.start();
    // As operator/deploy/namespace.yaml has it: the prep pods must pass Pod Security "restricted".
    await ns.api.patch(
      NAMESPACES,
      { name: ns.name },
      {
        metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
      },
    );
    platform = await startBundlePlatform(ns.kubeConfig, ns.name, (name) => name.includes(suffix));
    const config = {
      operatorNamespace: ns.name,
      crcAgentImage: TEST_AGENT_IMAGE,
      crcBundleMirrorUrl: mirror.baseUrl,
    };
    operatorConfig = testConfig(config);
    manager = await world.startOperator({
      clock,
      config,
      bundles: true,
    });
  });

  afterAll(async () => {
    // Pools with instances carry the pool-protection finalizer: they go with the manager running.
    // They go first: a pool with crcVersion would make its deleted bundle again, and a prep of it
    // would start while the platform stops.
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await Promise.all(created.map((name) => ns.api.delete(BUNDLES, name).catch(() => undefined)));
    await manager?.stop();
    await platform?.stop();
    await mirror?.stop();
  });

  let ready: { name: string; bundle: TestBundle };

  it('prepares a bundle from the mirror: golden disk, SSH key, metadata and status', async () => {
    const v = version('4.18.1');
    const bundle = await mirror.publish(v);
    const name = nameOf(v);
    ready = { name, bundle };
    // A key Secret of that name left without an owner (a restore, an earlier hand-made one): the
    // prep takes it over, although its account may not set an owner reference.
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-ssh-key`, namespace: ns.name },
      stringData: { id_ecdsa: 'left over' },
    } as Secret);
    await createBundle(name, { version: v });
    const done = await waitForBundle(name, (b) => phase(b) === 'Ready');
    expect(done!.status).toMatchObject({
      qcow2PVCRef: { name: `${name}-golden` },
      qcow2PVCNamespace: ns.name,
      sshKeySecretRef: { name: `${name}-ssh-key` },
      ocpVersion: `${v}-ocp`,
      sha256: bundle.archiveSha256,
      diskSHA256: bundle.rawSha256,
      diskVirtualSizeBytes: TEST_DISK_BYTES,
    });
    expect(condition(done, 'Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
    expect(condition(done, 'Prepared')).toMatchObject({ status: 'True', reason: 'PrepSucceeded' });
    // The default URLs: the mirror's folder of the version.
    expect(mirror.server.requests).toEqual(
      expect.arrayContaining([`/${v}/sha256sum.txt`, `/${v}/${bundle.fileName}`]),
    );

    const golden = await get<PersistentVolumeClaim>(PVCS, `${name}-golden`);
    expect(golden.metadata!.labels).toEqual({
      'opdev.io/managed-by': 'guestcluster-operator',
      'opdev.io/crc-bundle': name,
    });
    expect(golden.metadata!.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'CRCBundle',
        name,
        uid: done!.metadata!.uid,
        controller: true,
      }),
    ]);
    expect(golden.spec).toMatchObject({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '35Gi' } },
    });
    expect(golden.spec.storageClassName).toBeUndefined();
    const disk = await readFile(
      path.join(platform.storage.volumePath(ns.name, `${name}-golden`)!, 'disk.img'),
    );
    expect(disk.equals(bundle.rawDisk)).toBe(true);

    const secret = await get<Secret>(SECRETS, `${name}-ssh-key`);
    expect(Buffer.from(secret.data!.id_ecdsa!, 'base64').toString()).toBe(bundle.sshPrivateKey);
    expect(secret.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CRCBundle', uid: done!.metadata!.uid, controller: true }),
    ]);
    const metadata = await get<ConfigMap>(CONFIG_MAPS, `${name}-metadata`);
    expect(metadata.data).toMatchObject({ ocpVersion: `${v}-ocp`, sha256: bundle.archiveSha256 });

    // Best-effort clean-up once Ready: the finished Job and the scratch PVC go.
    await gone(JOBS, `${name}-prep`);
    await gone(PVCS, `${name}-scratch`);
    await eventsOf(name, withReasons('Preparing', 'BundleReady'));
  });

  it('changes nothing when a Ready bundle is reconciled again, twice', async () => {
    const { name } = ready;
    const before = await ns.api.get<CRCBundle>(BUNDLES, name);
    const controller = new BundleController(manager.ports, operatorConfig);
    const logger = pino({ level: 'silent' });
    await controller.reconcile(name, { logger });
    await controller.reconcile(name, { logger });
    const after = await ns.api.get<CRCBundle>(BUNDLES, name);
    expect(after.metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
    const jobs = await ns.api.list<Job>(JOBS, { namespace: ns.name });
    expect(jobs.items.map((j) => j.metadata!.name)).not.toContain(`${name}-prep`);
  });

  it('takes the mirror URL, checksum URL and storage class from the spec', async () => {
    const v = version('4.18.2');
    const name = nameOf(v);
    const bundle = await mirror.publish(v, { folder: `overrides/${v}` });
    // Both PVCs as they were created (the scratch one is removed once the bundle is Ready).
    const claims = new Map<string, PersistentVolumeClaim>();
    const bothClaims = waitForList<PersistentVolumeClaim>(ns.kubeConfig, {
      type: PVCS,
      namespace: ns.name,
      labelSelector: `opdev.io/crc-bundle=${name}`,
      until: (items) => {
        for (const item of items) claims.set(item.metadata!.name!, item);
        return claims.size === 2;
      },
      description: 'the golden and scratch PVCs',
    });
    await createBundle(name, {
      version: v,
      bundleURL: `${mirror.baseUrl}/overrides/${v}/${bundle.fileName}`,
      sha256URL: `${mirror.baseUrl}/overrides/${v}/sha256sum.txt`,
      storageClassName: 'fast-local',
      goldenVolumeSize: '20Gi',
    });
    const job = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: `${name}-prep`,
      until: (j) => j !== undefined,
    });
    const env = Object.fromEntries(
      job!.spec.template.spec.containers[0]!.env!.map((e) => [e.name, e.value]),
    );
    expect(job!.spec.template.spec.serviceAccountName).toBe(`${name}-prep`);
    expect(env).toMatchObject({
      BUNDLE_URL: `${mirror.baseUrl}/overrides/${v}/${bundle.fileName}`,
      SHA256_URL: `${mirror.baseUrl}/overrides/${v}/sha256sum.txt`,
      NAMESPACE: ns.name,
      BUNDLE_NAME: name,
      SSH_SECRET_NAME: `${name}-ssh-key`,
      METADATA_CONFIGMAP_NAME: `${name}-metadata`,
    });
    await bothClaims;
    for (const claim of claims.values()) expect(claim.spec.storageClassName).toBe('fast-local');
    const done = await waitForBundle(name, (b) => phase(b) === 'Ready');
    expect(done!.status!.diskSHA256).toBe(bundle.rawSha256);
    const golden = await get<PersistentVolumeClaim>(PVCS, `${name}-golden`);
    expect(golden.spec).toMatchObject({
      storageClassName: 'fast-local',
      resources: { requests: { storage: '20Gi' } },
    });
    expect(mirror.server.requests).not.toContain(`/${v}/sha256sum.txt`);
    other = name;
  });

  /** The second bundle prepared here: what one prep account must not reach. */
  let other: string;

  it("gives each prep Job an account of its own that reaches exactly its bundle's Secret and ConfigMap", async () => {
    const { name } = ready;
    const account = `system:serviceaccount:${ns.name}:${name}-prep`;
    // A Secret of the operator namespace that is no bundle's, as the GitHub credential is.
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'github-credentials', namespace: ns.name },
      stringData: { token: 'not-for-bundles' },
    } as Secret);
    const prep = new ApiClient(impersonating(ns.kubeConfig, account));
    try {
      const key = await prep.get<Secret>(SECRETS, `${name}-ssh-key`, ns.name);
      await prep.update(SECRETS, key);
      const metadata = await prep.get<ConfigMap>(CONFIG_MAPS, `${name}-metadata`, ns.name);
      await prep.update(CONFIG_MAPS, metadata);
      const refused = [
        prep.get(SECRETS, 'github-credentials', ns.name),
        prep.get(SECRETS, `${other}-ssh-key`, ns.name),
        prep.get(CONFIG_MAPS, `${other}-metadata`, ns.name),
        prep.list(SECRETS, { namespace: ns.name }),
        prep.create(SECRETS, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `${name}-extra`, namespace: ns.name },
        }),
        prep.delete(SECRETS, `${name}-ssh-key`, ns.name),
      ];
      for (const attempt of refused) await expect(attempt).rejects.toMatchObject({ status: 403 });
    } finally {
      await prep.close();
    }
    // The account, its Role and its binding go with the bundle (owned by it).
    for (const type of [SERVICE_ACCOUNTS, ROLES, ROLE_BINDINGS]) {
      const object = await get<KubeObject>(type, `${name}-prep`);
      expect(object.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'CRCBundle', name, controller: true }),
      ]);
    }
  });

  it('fails naming the step and the file on a checksum mismatch, and retries on its own once fixed', async () => {
    const v = version('4.18.3');
    const name = nameOf(v);
    const bundle = await mirror.publish(v, { digest: 'ab'.repeat(32) });
    await createBundle(name, { version: v });
    const failed = await waitForBundle(name, (b) => phase(b) === 'Failed');
    const ready = condition(failed, 'Ready')!;
    expect(ready).toMatchObject({ status: 'False', reason: 'PrepJobFailed' });
    expect(ready.message).toContain(`failed in step Verify`);
    expect(ready.message).toContain(`checksum mismatch for ${bundle.fileName}`);
    expect(ready.message).toMatch(/Retrying in \d+s \(attempt 2\)$/);
    expect(condition(failed, 'Prepared')).toMatchObject({
      status: 'False',
      reason: 'VerifyFailed',
    });
    const job = await get<Job>(JOBS, `${name}-prep`);
    expect(job.status!.failed).toBe(3); // backoffLimit 2: three pods
    const events = await eventsOf(name, withReasons('PrepJobFailed'));
    expect(events.find((e) => e.reason === 'PrepJobFailed')).toMatchObject({ type: 'Warning' });
    const counted = `guestcluster_bundle_failures_total{bundle="${name}",reason="VerifyFailed"} 1`;
    expect(await manager.metrics.registry.metrics()).toContain(counted);

    // Once the backoff has passed, the Failed bundle prepares again, now successfully.
    await mirror.writeChecksums(v, bundle, bundle.archiveSha256);
    clock.advance(PREP_RETRY_BACKOFF.baseMs);
    const done = await waitForBundle(name, (b) => phase(b) === 'Ready');
    expect(done!.status!.sha256).toBe(bundle.archiveSha256);
    expect(condition(done, 'Prepared')).toMatchObject({ status: 'True' });
    await eventsOf(name, withReasons('PrepJobFailed', 'RetryingPrep', 'BundleReady'));
  });

  it('prepares again when the SSH key Secret or the golden PVC disappears', async () => {
    const { name } = ready;
    const oldSecret = await get<Secret>(SECRETS, `${name}-ssh-key`);
    await ns.api.delete(SECRETS, `${name}-ssh-key`, ns.name);
    const secret = await waitFor<Secret>(ns.kubeConfig, {
      type: SECRETS,
      namespace: ns.name,
      name: `${name}-ssh-key`,
      until: (s) => s !== undefined && s.metadata!.uid !== oldSecret.metadata!.uid,
      timeoutMs: 90_000,
    });
    expect(secret).toBeDefined();
    await waitForBundle(name, (b) => phase(b) === 'Ready');

    const oldGolden = await get<PersistentVolumeClaim>(PVCS, `${name}-golden`);
    await ns.api.delete(PVCS, `${name}-golden`, ns.name);
    await waitFor<PersistentVolumeClaim>(ns.kubeConfig, {
      type: PVCS,
      namespace: ns.name,
      name: `${name}-golden`,
      until: (p) => p !== undefined && p.metadata!.uid !== oldGolden.metadata!.uid,
      timeoutMs: 90_000,
    });
    await waitForBundle(name, (b) => phase(b) === 'Ready');
    const golden = platform.storage.volumePath(ns.name, `${name}-golden`)!;
    expect((await readFile(path.join(golden, 'disk.img'))).equals(ready.bundle.rawDisk)).toBe(true);
    const reprovisioning = (e: BundleEvent, cause: string): boolean =>
      e.reason === 'Reprovisioning' && e.message === `Preparing the bundle again: ${cause}`;
    await eventsOf(
      name,
      (events) =>
        events.some((e) => reprovisioning(e, 'SSH key secret is missing')) &&
        events.some((e) => reprovisioning(e, 'golden PVC is missing')),
    );
  });

  it('creates one bundle for two pools of one crcVersion, and their instances refer to it', async () => {
    const v = version('4.18.4');
    const name = nameOf(v);
    created.push(name);
    await mirror.publish(v);
    await enableNamespace(ns.api, ns.name);
    const pool = (poolName: string): ClusterPool => ({
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: poolName, namespace: ns.name },
      spec: {
        type: 'crc',
        maxSize: 2,
        minSize: 1,
        template: { crcVersion: v, ocpVersion: `${v}-ocp`, memory: '16Gi', cores: 4 },
      },
    });
    await ns.api.create(POOLS, pool('first'));
    await ns.api.create(POOLS, pool('second'));
    const instances = await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      until: (items) => items.length === 2,
      description: 'one instance per pool',
    });
    const done = await waitForBundle(name, (b) => phase(b) === 'Ready');
    const bundles = await ns.api.list<CRCBundle>(BUNDLES);
    expect(bundles.items.filter((b) => b.spec.version === v).map((b) => b.metadata!.name)).toEqual([
      name,
    ]);
    for (const instance of instances) {
      const { crcVersion, crcArch } = instance.spec.template;
      expect(`crc-${crcVersion}-${crcArch || 'amd64'}`).toBe(name);
    }
    // What a clone of the golden disk uses (the clone itself is the instance controller's).
    expect(done!.status).toMatchObject({
      qcow2PVCRef: { name: `${name}-golden` },
      qcow2PVCNamespace: ns.name,
    });
    const golden = platform.storage.volumePath(ns.name, `${name}-golden`);
    expect(golden).toBeDefined();
  });

  it("accepts the reference's build example as written, and says which input it waits for", async () => {
    // The reference's example (its digest filled in): every referenced object in the operator's
    // namespace, the versioned VM profile.
    const name = `crc-4-22-custom-${suffix}`;
    created.push(name);
    await ns.api.create(BUNDLES, {
      apiVersion: BUNDLES.apiVersion,
      kind: BUNDLES.kind,
      metadata: { name, labels: world.scopeLabels },
      spec: {
        arch: 'amd64',
        storageClassName: 'fast-storage',
        goldenVolumeSize: '80Gi',
        build: {
          releaseImage: `quay.io/example/ocp-release@sha256:${'a'.repeat(64)}`,
          pullSecretRef: { name: 'bundle-build-pull-secret' },
          profile: 'crc-kubevirt-v1',
          installationManifestRefs: [{ name: 'custom-machineconfigs' }],
          postInstallManifestRefs: [{ name: 'custom-cluster-resources' }],
          vm: { cores: 8, memory: '24Gi', diskSize: '64Gi' },
        },
      },
    });
    const waiting = await waitForBundle(
      name,
      (b) => condition(b, 'Ready')?.reason === 'WaitingForInputs',
    );
    expect(waiting!.status?.phase).toBe('Pending');
    expect(condition(waiting, 'Ready')?.message).toContain(
      `Secret ${ns.name}/bundle-build-pull-secret (PullSecret) does not exist`,
    );
    // Nothing was started for it, and no attempt recorded.
    expect(waiting!.status?.build?.attempt).toBeUndefined();
    // The defaults the API filled in: certificate rotation as snc does it.
    expect(waiting!.spec.build?.certificateRotation).toBe('Enabled');

    // Each input's creation wakes the build (no other event would): it names the next one, then
    // starts once all are there.
    const waitsFor = (what: string) =>
      waitFor<CRCBundle>(ns.kubeConfig, {
        type: BUNDLES,
        name,
        until: (b) => condition(b, 'Ready')?.message?.includes(what) ?? false,
        description: `the build to wait for ${what}`,
        timeoutMs: 20_000,
      });
    // A pull secret that no container runtime could use: the build says what is wrong in it,
    // never what it holds, and waits for it to be corrected.
    const token = 'an-unpaired-registry-token';
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bundle-build-pull-secret', namespace: ns.name },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: {
        '.dockerconfigjson': JSON.stringify({
          auths: { 'registry.redhat.io': { auth: Buffer.from(token).toString('base64') } },
        }),
      },
    } as Secret);
    const invalid = await waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name,
      until: (b) => condition(b, 'Ready')?.reason === 'InvalidPullSecret',
      description: 'the build to refuse its pull secret',
      timeoutMs: 20_000,
    });
    expect(invalid!.status?.phase).toBe('Pending');
    expect(condition(invalid, 'Ready')?.message).toBe(
      `pull secret ${ns.name}/bundle-build-pull-secret: data key ".dockerconfigjson" has an entry for registry "registry.redhat.io" whose "auth" does not decode to user:password; correct the Secret`,
    );
    const warned = await eventsOf(name, withReasons('InvalidPullSecret'));
    expect(warned.find((e) => e.reason === 'InvalidPullSecret')).toMatchObject({
      type: 'Warning',
      message: condition(invalid, 'Ready')?.message,
    });
    expect(JSON.stringify([invalid, warned])).not.toContain(Buffer.from(token).toString('base64'));
    await ns.api.patch(
      SECRETS,
      { name: 'bundle-build-pull-secret', namespace: ns.name },
      { stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}' } },
    );
    await waitsFor(
      `ConfigMap ${ns.name}/custom-machineconfigs (InstallationManifest) does not exist`,
    );
    for (const configMap of ['custom-machineconfigs', 'custom-cluster-resources'])
      await ns.api.create(CONFIG_MAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: configMap, namespace: ns.name },
        data: { '99-example.yaml': 'kind: MachineConfig\n' },
      });
    const started = await waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name,
      until: (b) => !!b?.status?.build?.attempt,
      description: 'the build to start once its inputs are there',
      timeoutMs: 20_000,
    });
    expect(started!.status!.build!.inputs!.map((i) => i.name)).toEqual([
      'bundle-build-pull-secret',
      'custom-machineconfigs',
      'custom-cluster-resources',
    ]);
    // The build's finalizer lets it go once what it made is gone.
    await ns.api.delete(BUNDLES, name);
    await waitForBundle(name, (b) => b === undefined);
  });

  it('leaves nothing behind when the bundle is deleted', async () => {
    const { name } = ready;
    await ns.api.delete(BUNDLES, name);
    await gone(PVCS, `${name}-golden`);
    await gone(SECRETS, `${name}-ssh-key`);
    await gone(CONFIG_MAPS, `${name}-metadata`);
    await gone(JOBS, `${name}-prep`);
  });
});
