import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EVENTS } from '../../client/api/core-resources.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { FINALIZER_INSTANCE_CLEANUP } from '../../operator/api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS, ROUTES } from '../../operator/api/platform-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { guestApiProbe } from '../../operator/controllers/clusterinstance/core/guest-api-probe.js';
import { readStrictKubeconfig } from '../../operator/kube/strict-kubeconfig.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import type { Diagnostics } from '../../client/diagnostics/diagnostics-facts.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { createPullSecret, readyCondition } from '../support/fixtures/hcp-fixtures.js';

const world = useWorld({
  namespace: 'hcp',
  enabled: true,
  platform: { hcp: true },
  operator: true,
});
const { ns } = world;

type Platform = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
const b64decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString();

describe('hcp pool → instance → lease on simulated HyperShift', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'hcp-lease-'));
    await createPullSecret(ns.api, ns.name);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const readyInstance = (description: string, exclude?: string): Promise<ClusterInstance[]> =>
    waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      description,
      timeoutMs: 120_000,
      until: (items) =>
        items.some(
          (i) =>
            i.status?.phase === 'Ready' &&
            !i.metadata?.deletionTimestamp &&
            i.metadata?.uid !== exclude,
        ),
    });

  let instance: ClusterInstance;

  it('provisions a Ready instance: HostedCluster on KubeVirt, NodePool at its replicas, Route, kubeconfig Secret', async () => {
    const pool: ClusterPool = hcpPool(ns.name, 'hcp', { maxSize: 2, warmSpares: 1 });
    pool.spec.template.nodePoolReplicas = 2;
    pool.spec.template.controllerAvailabilityPolicy = 'HighlyAvailable';
    await ns.api.create(POOLS, pool);
    const items = await readyInstance('a Ready instance in the pool');
    instance = items.find((i) => i.status?.phase === 'Ready')!;
    const name = instance.metadata!.name!;
    expect(instance.metadata!.finalizers).toContain(FINALIZER_INSTANCE_CLEANUP);
    const hyperShift = instance.status!.hyperShift!;
    expect(hyperShift.hostedClusterNamespace).toBe(ns.name);
    expect(hyperShift.hostedClusterName).toMatch(/^gc-hcp-0-[0-9a-f]{16}$/);
    expect(hyperShift.nodePoolNames).toEqual([`${hyperShift.hostedClusterName}-workers`]);
    expect(instance.status).toMatchObject({
      phase: 'Ready',
      topology: 'hcp',
      ocpVersion: '4.16.10',
      kubeconfigSecretRef: { name: `${name}-kubeconfig` },
    });
    expect(instance.status!.apiEndpoint).toMatch(
      new RegExp(
        `^https://api-hcp-0-[0-9a-f]{16}\\.${world.platform.router.domain.replaceAll('.', '\\.')}$`,
      ),
    );
    expect(readyCondition(instance)).toMatchObject({
      status: 'True',
      reason: 'BackingResourcesAvailable',
    });
    for (const type of [
      'HyperConvergedReady',
      'MultiClusterEngineReady',
      'WildcardRoutesAllowed',
      'ProvisioningAllowed',
    ])
      expect(instance.status!.conditions!.find((c) => c.type === type)?.status).toBe('True');
    expect(instance.status!.conditions!.find((c) => c.type === 'VersionMismatch')).toMatchObject({
      status: 'False',
      reason: 'OCPVersionMatches',
    });

    const hc = await ns.api.get<Platform>(HOSTED_CLUSTERS, hyperShift.hostedClusterName!, ns.name);
    const hostname = instance.status!.apiEndpoint!.slice('https://'.length);
    expect(hc.spec).toMatchObject({
      release: { image: pool.spec.template.releaseImage },
      controllerAvailabilityPolicy: 'HighlyAvailable',
      platform: { type: 'KubeVirt', kubevirt: { baseDomainPassthrough: true } },
      // HyperShift (simulated) fills in the guest's base domain: the management apps domain.
      dns: { baseDomain: world.platform.router.domain },
      pullSecret: { name: 'pull-secret' },
      configuration: {
        apiServer: {
          servingCerts: {
            namedCertificates: [
              { names: [hostname], servingCertificate: { name: `${name}-kas-serving-cert` } },
            ],
          },
        },
      },
    });
    expect(hc.metadata!.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'ClusterInstance',
        name,
        uid: instance.metadata!.uid,
        controller: true,
      }),
    ]);
    expect(hc.spec!.services).toContainEqual({
      service: 'APIServer',
      servicePublishingStrategy: { type: 'LoadBalancer' },
    });
    const nodePool = await ns.api.get<Platform>(NODE_POOLS, hyperShift.nodePoolNames![0]!, ns.name);
    expect(nodePool.spec).toMatchObject({ clusterName: hc.metadata!.name, replicas: 2 });
    expect(nodePool.status).toMatchObject({ replicas: 2 });
    // HyperShift's NodePool controller leaves a plain reference to the HostedCluster.
    expect(nodePool.metadata!.ownerReferences).toEqual([
      {
        apiVersion: HOSTED_CLUSTERS.apiVersion,
        kind: 'HostedCluster',
        name: hc.metadata!.name,
        uid: hc.metadata!.uid,
      },
      expect.objectContaining({ kind: 'ClusterInstance', uid: instance.metadata!.uid }),
    ]);
    // Its HostedCluster controller gives the admin kubeconfig Secret the HostedCluster's labels.
    const admin = await ns.api.get<KubeObject>(
      SECRETS,
      `${hc.metadata!.name}-admin-kubeconfig`,
      ns.name,
    );
    expect(admin.metadata!.labels).toEqual(hc.metadata!.labels);
    expect(admin.metadata!.ownerReferences).toEqual([
      {
        apiVersion: HOSTED_CLUSTERS.apiVersion,
        kind: 'HostedCluster',
        name: hc.metadata!.name,
        uid: hc.metadata!.uid,
      },
    ]);
    const route = await ns.api.get<Platform>(
      ROUTES,
      `${name}-api`,
      `${ns.name}-${hc.metadata!.name}`,
    );
    expect(route.spec).toMatchObject({ host: hostname, tls: { termination: 'passthrough' } });
    const provisioning = await world.operator.metrics.registry.getSingleMetricAsString(
      'guestcluster_instance_provisioning_seconds',
    );
    expect(provisioning).toContain(
      'guestcluster_instance_provisioning_seconds_count{topology="hcp"} 1',
    );
    const events = await ns.api.list<KubeObject & { reason?: string }>(EVENTS, {
      namespace: ns.name,
    });
    const reasons = events.items
      .filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name)
      .map((e) => e.reason);
    expect(reasons).toEqual(
      expect.arrayContaining([
        'HostedClusterCreated',
        'NodePoolCreated',
        'BackingResourcesAvailable',
      ]),
    );
  });

  it('binds a lease whose kubeconfig works against the guest API through the Route host', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'job-1', 'hcp'));
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => l?.status?.phase === 'Bound',
      timeoutMs: 120_000,
    });
    expect(bound!.status).toMatchObject({
      instanceRef: { name: instance.metadata!.name },
      topology: 'hcp',
      ocpVersion: '4.16.10',
      apiEndpoint: instance.status!.apiEndpoint,
    });
    const secret = await ns.api.get<KubeObject & { data?: Record<string, string> }>(
      SECRETS,
      'job-1-kubeconfig',
      ns.name,
    );
    const kubeconfig = b64decode(secret.data?.kubeconfig);
    const clusters = (parse(kubeconfig) as { clusters: { cluster: Record<string, string> }[] })
      .clusters;
    expect(clusters.map((c) => c.cluster.server)).toEqual([instance.status!.apiEndpoint]);
    const file = path.join(dir, 'lease.kubeconfig');
    await writeFile(file, kubeconfig, { mode: 0o600 });
    // The Route host has no DNS here: connect to the router, keep the host name for TLS.
    const hostname = instance.status!.apiEndpoint!.slice('https://'.length);
    const kubectl = (...args: string[]): Promise<{ stdout: string }> =>
      runCommand(testEnv('kubectl'), [
        '--kubeconfig',
        file,
        `--server=https://127.0.0.1:${world.platform.router.port}`,
        `--tls-server-name=${hostname}`,
        ...args,
      ]);
    const version = await kubectl(
      'get',
      'clusterversion',
      'version',
      '-o',
      'jsonpath={.status.desired.version}',
    );
    expect(version.stdout).toBe('4.16.10');
    const namespaces = await kubectl('get', 'namespaces', '-o', 'name');
    expect(namespaces.stdout.split('\n')).toContain('namespace/openshift-config');

    // With the router as HTTPS proxy, the kubeconfig works as it is, for kubectl and the probe.
    const proxied = await runCommand(
      testEnv('kubectl'),
      ['--kubeconfig', file, 'get', 'namespace', 'openshift-config', '-o', 'name'],
      { env: { ...process.env, HTTPS_PROXY: world.platform.router.proxyUrl, NO_PROXY: '' } },
    );
    expect(proxied.stdout.trim()).toBe('namespace/openshift-config');
    // The lease's kubeconfig is one the operator would accept from a Secret, too.
    const access = readStrictKubeconfig(kubeconfig, { servers: [instance.status!.apiEndpoint!] });
    await expect(guestApiProbe()(access)).rejects.toThrow(/ENOTFOUND|EAI_AGAIN/);
    process.env.HTTPS_PROXY = world.platform.router.proxyUrl;
    try {
      await expect(guestApiProbe()(access)).resolves.toBeUndefined();
    } finally {
      delete process.env.HTTPS_PROXY;
    }
  });

  it("diagnoses the bound lease: its instance, HostedCluster, NodePool and the guest's ClusterOperators", async () => {
    // A person with the admin kubeconfig; the router is this machine's HTTPS proxy, as it would
    // be a cluster-wide proxy's. The guest is reached only at the instance's endpoint.
    const out = path.join(dir, 'diagnostics');
    const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
    const result = await runCommand(
      process.execPath,
      [
        ...[cli, 'diagnose', 'lease', 'job-1', '-n', ns.name],
        ...['--kubeconfig', testEnv('kubeconfig'), '--output', out],
      ],
      { env: { HOME: dir, HTTPS_PROXY: world.platform.router.proxyUrl, NO_PROXY: '' } },
    );
    expect(result.stdout).toBe(`${out}\n`);
    const report = JSON.parse(
      await readFile(path.join(out, 'diagnostics.json'), 'utf8'),
    ) as Diagnostics;
    const kinds = report.objects.map((o) => o.kind);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'ClusterLease',
        'ClusterInstance',
        'HostedCluster',
        'NodePool',
        'ClusterPool',
      ]),
    );
    expect(report.guest).toMatchObject({ endpoint: instance.status!.apiEndpoint, reached: true });
    const operators = report.guest!.clusterOperators;
    expect(operators.length).toBeGreaterThan(0);
    expect(operators[0]!.conditions).toContainEqual(
      expect.objectContaining({ type: 'Available', status: 'True' }),
    );
    const markdown = await readFile(path.join(out, 'diagnostics.md'), 'utf8');
    expect(markdown).toContain(`| ${operators[0]!.name} |`);
    // No credential of the guest kubeconfig is in either file.
    const secret = await ns.api.get<KubeObject & { data?: Record<string, string> }>(
      SECRETS,
      'job-1-kubeconfig',
      ns.name,
    );
    const credentials = [
      ...b64decode(secret.data?.kubeconfig).matchAll(
        /(?:client-key-data|client-certificate-data|token): (\S+)/g,
      ),
    ].map(([, value]) => value!);
    expect(credentials.length).toBeGreaterThan(0);
    for (const value of credentials) {
      expect(markdown).not.toContain(value);
      expect(JSON.stringify(report)).not.toContain(value);
    }
  });

  it('tears down on release: HostedCluster first, then NodePool; nothing is left; the pool tops up', async () => {
    const name = instance.metadata!.name!;
    const hyperShift = instance.status!.hyperShift!;
    const hcName = hyperShift.hostedClusterName!;
    const controlPlane = `${ns.name}-${hcName}`;
    const hostname = instance.status!.apiEndpoint!.slice('https://'.length);
    const deleting = (
      type: typeof HOSTED_CLUSTERS,
      objectName: string,
    ): Promise<Platform | undefined> =>
      waitFor<Platform>(ns.kubeConfig, {
        type,
        namespace: ns.name,
        name: objectName,
        until: (o) => !!o?.metadata?.deletionTimestamp,
        timeoutMs: 120_000,
      });
    const hcDeleting = deleting(HOSTED_CLUSTERS, hcName);
    const npDeleting = deleting(NODE_POOLS, hyperShift.nodePoolNames![0]!);
    expect(await world.platform.hostedGuest.servedHostnames()).toContain(hostname);

    await ns.api.delete(LEASES, 'job-1', ns.name);
    const [hc, np] = await Promise.all([hcDeleting, npDeleting]);
    // resourceVersions are etcd revisions of one store: the NodePool's deletion came after.
    expect(BigInt(hc!.metadata!.resourceVersion!)).toBeLessThan(
      BigInt(np!.metadata!.resourceVersion!),
    );

    const gone = (
      type: typeof SECRETS | typeof NAMESPACES,
      objectName: string,
      namespace?: string,
    ): Promise<unknown> =>
      waitFor(ns.kubeConfig, {
        type,
        name: objectName,
        namespace,
        until: (o) => o === undefined,
        timeoutMs: 120_000,
      });
    await gone(INSTANCES, name, ns.name);
    await Promise.all([
      gone(HOSTED_CLUSTERS, hcName, ns.name),
      gone(NODE_POOLS, hyperShift.nodePoolNames![0]!, ns.name),
      gone(SECRETS, `${name}-kubeconfig`, ns.name),
      gone(SECRETS, `${name}-kas-serving-cert`, ns.name),
      gone(SECRETS, `${hcName}-admin-kubeconfig`, ns.name),
      gone(SECRETS, 'job-1-kubeconfig', ns.name),
      gone(ROUTES, `${name}-api`, controlPlane),
      gone(NAMESPACES, controlPlane),
    ]);
    expect(await world.platform.hostedGuest.servedHostnames()).not.toContain(hostname);
    // The pull secret is the user's and stays.
    await expect(ns.api.get(SECRETS, 'pull-secret', ns.name)).resolves.toBeDefined();

    const again = await readyInstance(
      'the pool to top up with a new Ready instance',
      instance.metadata!.uid,
    );
    expect(again.filter((i) => !i.metadata?.deletionTimestamp)).toHaveLength(1);
    const figures = await world.operator.metrics.registry.metrics();
    expect(figures).toContain('guestcluster_instance_teardown_seconds_count{topology="hcp"} 1');
    expect(figures).toMatch(
      /guestcluster_lease_release_seconds_count\{namespace="[^"]+",pool="hcp"\} 1/,
    );
  });
});
