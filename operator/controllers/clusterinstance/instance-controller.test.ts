import { Registry } from 'prom-client';
import { findCondition } from '../../api/conditions.js';
import { FINALIZER_INSTANCE_CLEANUP, LABEL_NAMESPACE_ENABLED } from '../../api/labels.js';
import {
  CUSTOM_RESOURCE_DEFINITIONS,
  DATA_VOLUMES,
  DEPLOYMENTS,
  HOSTED_CLUSTERS,
  HYPERCONVERGEDS,
  INGRESS_CONFIGS,
  INGRESS_CONTROLLERS,
  MULTICLUSTERENGINES,
  NODE_POOLS,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { BUNDLES, INSTANCES, NAMESPACES, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { createLogger } from '../../runtime/logger.js';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import { apiHostname } from './core/naming.js';
import type { InstanceTimings } from './core/timings.js';
import { DEFAULT_INSTANCE_TIMINGS } from './core/timings.js';
import type { InstanceController } from './instance-controller.js';
import { instanceController } from './instance-registration.js';

const NS = 'tenant';
const DOMAIN = 'apps.mgmt.example';
const RELEASE = 'https://bundles.example/crc.qcow2';
const context = { logger: createLogger('error') };

type Platform = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  type?: string;
  data?: Record<string, string>;
};

/**
 * InstanceController.reconcile on in-memory ports, both topologies. A pass that writes ends with
 * the update event that brings the next one, so each case runs the passes a new object gets, one
 * by one, and then the last one again: that second call must find nothing to do (no create, no
 * status write, no Event). The integration tests on a real control plane (test/crc/, test/hcp/)
 * stay the proof of the whole.
 */
describe('InstanceController.reconcile', () => {
  let ports: FakePorts;
  let controller: InstanceController;
  /** What the settled pass of the last settle() returned. */
  let settledResult: unknown;

  /** The controller as the registration builds it, with both topologies. */
  const build = (timings: InstanceTimings = DEFAULT_INSTANCE_TIMINGS): InstanceController =>
    instanceController(ports, {
      settings: {
        crcAgentImage: 'agent:test',
        crcAgentClusterRole: 'crc-agent-role',
        operatorNamespace: 'guestcluster-operator-system',
      },
      metricsRegistry: new Registry(),
      timings,
      // No guest answers here; the passes under test end before the guest API is asked.
      crc: { probe: () => Promise.reject(new Error('no guest API in a unit test')) },
      hcp: { probe: () => Promise.reject(new Error('no guest API in a unit test')) },
    });

  beforeEach(() => {
    ports = fakePorts();
    controller = build();
    seedNamespace(true);
    seedPlatform();
    seed(SECRETS, {
      metadata: { name: 'pull-secret', namespace: NS },
      type: 'kubernetes.io/dockerconfigjson',
      data: {
        '.dockerconfigjson': Buffer.from('{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}').toString(
          'base64',
        ),
      },
    });
    seed(SECRETS, {
      metadata: { name: 'bundle-key', namespace: NS },
      data: { id_ecdsa: Buffer.from('bundle key').toString('base64') },
    });
  });

  const seed = (type: Parameters<FakePorts['api']['seed']>[0], object: Platform): Platform =>
    ports.api.seed<Platform>(type, object);

  function seedNamespace(enabled: boolean): void {
    seed(NAMESPACES, {
      metadata: { name: NS, labels: enabled ? { [LABEL_NAMESPACE_ENABLED]: 'true' } : {} },
    });
  }

  /** HyperConverged, MultiClusterEngine with HyperShift, and an ingress that admits wildcards. */
  function seedPlatform(): void {
    seed(INGRESS_CONFIGS, { metadata: { name: 'cluster' }, spec: { domain: DOMAIN } });
    seed(HYPERCONVERGEDS, {
      metadata: { name: 'kubevirt-hyperconverged', namespace: 'openshift-cnv', generation: 1 },
      status: {
        observedGeneration: 1,
        conditions: [
          { type: 'Available', status: 'True' },
          { type: 'Progressing', status: 'False' },
          { type: 'Degraded', status: 'False' },
        ],
      },
    });
    seed(MULTICLUSTERENGINES, {
      metadata: { name: 'multiclusterengine' },
      spec: { overrides: { components: [{ name: 'hypershift', enabled: true }] } },
    });
    for (const kind of ['hostedclusters', 'nodepools'])
      seed(CUSTOM_RESOURCE_DEFINITIONS, {
        metadata: { name: `${kind}.hypershift.openshift.io` },
        status: { conditions: [{ type: 'Established', status: 'True' }] },
      });
    seed(DEPLOYMENTS, {
      metadata: { name: 'operator', namespace: 'hypershift' },
      status: { availableReplicas: 1 },
    });
    seed(INGRESS_CONTROLLERS, {
      metadata: { name: 'default', namespace: 'openshift-ingress-operator' },
      spec: { routeAdmission: { wildcardPolicy: 'WildcardsAllowed' } },
    });
  }

  function seedCrc(name: string): ClusterInstance {
    return ports.api.seed<ClusterInstance>(INSTANCES, {
      metadata: { name, namespace: NS },
      spec: {
        type: 'crc',
        template: { releaseImage: RELEASE, bundleSSHKeyRef: { name: 'bundle-key' } },
      },
    } as unknown as ClusterInstance);
  }

  function seedHcp(name: string): ClusterInstance {
    return ports.api.seed<ClusterInstance>(INSTANCES, {
      metadata: { name, namespace: NS },
      spec: { type: 'hcp', template: { releaseImage: 'quay.io/openshift-release:4.19.0' } },
    } as unknown as ClusterInstance);
  }

  const instance = (name: string): ClusterInstance | undefined =>
    ports.api.peek<ClusterInstance>(INSTANCES, name, NS);
  const condition = (name: string, type: string): unknown =>
    findCondition(instance(name)?.status?.conditions, type);
  const reasons = (): string[] => ports.events.recorded.map((e) => e.reason);

  /** One pass; returns the writes it made. */
  async function pass(name: string): Promise<string[]> {
    const before = ports.api.writes.length;
    await controller.reconcile(`${NS}/${name}`, context);
    return ports.api.writes.slice(before);
  }

  /**
   * The passes, one by one, while they write (at most `limit`); then the last pass again, which
   * must change nothing: no write, the same result, no Event. Returns each writing pass's writes.
   */
  async function settle(name: string, limit = 8): Promise<string[][]> {
    const passes: string[][] = [];
    for (;;) {
      const writes = ports.api.writes.length;
      const events = ports.events.recorded.length;
      const first = await controller.reconcile(`${NS}/${name}`, context);
      const made = ports.api.writes.slice(writes);
      if (made.length > 0) {
        passes.push(made);
        if (passes.length > limit) throw new Error(`no fixed point after ${limit} passes`);
        continue;
      }
      expect(ports.events.recorded.length).toBe(events);
      const second = await controller.reconcile(`${NS}/${name}`, context);
      expect(second).toEqual(first);
      expect(ports.api.writes.length).toBe(writes);
      expect(ports.events.recorded.length).toBe(events);
      settledResult = second;
      return passes;
    }
  }

  it('gives a new crc instance its finalizer first, then its endpoint, disk and VM', async () => {
    const seeded = seedCrc('crc');

    // The finalizer comes before anything exists; nothing else is written in that pass.
    expect(await pass('crc')).toEqual(['update ClusterInstance tenant/crc']);
    expect(instance('crc')?.metadata?.finalizers).toEqual([FINALIZER_INSTANCE_CLEANUP]);
    expect(instance('crc')?.status).toBeUndefined();

    expect(await settle('crc')).toEqual([
      // The endpoint is durable before the Route and identity that embed it.
      ['status ClusterInstance tenant/crc'],
      [
        'create DataVolume tenant/crc-rootdisk',
        'create VirtualMachine tenant/crc',
        'status ClusterInstance tenant/crc',
      ],
    ]);

    const disk = ports.api.peek<Platform>(DATA_VOLUMES, 'crc-rootdisk', NS);
    const vm = ports.api.peek<Platform>(VIRTUAL_MACHINES, 'crc', NS);
    const owner = { kind: 'ClusterInstance', uid: seeded.metadata?.uid, controller: true };
    expect(disk).toMatchObject({
      metadata: { ownerReferences: [owner] },
      spec: { source: { http: { url: RELEASE } } },
    });
    expect(vm?.metadata?.ownerReferences).toEqual([expect.objectContaining(owner)]);
    expect(instance('crc')?.status?.apiEndpoint).toMatch(
      new RegExp(`^https://api-crc-[0-9a-f]+\\.${DOMAIN}$`),
    );
    expect(instance('crc')?.status).toMatchObject({
      phase: 'Provisioning',
      provisioning: { startedAt: '2026-12-01T12:00:00Z' },
      crc: { dataVolumeUID: disk?.metadata?.uid, vmUID: vm?.metadata?.uid },
    });
    expect(condition('crc', 'ProvisioningAllowed')).toMatchObject({
      status: 'True',
      reason: 'ProvisioningAuthorized',
    });
    expect(condition('crc', 'HyperConvergedReady')).toMatchObject({ status: 'True' });
    // The crc gate does not ask for HyperShift.
    expect(condition('crc', 'MultiClusterEngineReady')).toBeUndefined();
    // The VM waits for its disk, in CDI's words (none yet: CDI has not seen the DataVolume).
    expect(condition('crc', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'DataVolumePending',
      message: 'waiting for DataVolume tenant/crc-rootdisk to be filled: phase not reported yet',
    });
    expect(reasons().sort()).toEqual(
      ['DataVolumePending', 'DataVolumeCreated', 'VirtualMachineCreated'].sort(),
    );
  });

  /** A Ready bundle in the operator namespace, built for `profile` (none: downloaded). */
  function seedReadyBundle(name: string, profile?: string): Platform {
    const OPS = 'guestcluster-operator-system';
    const golden = seed(PERSISTENT_VOLUME_CLAIMS, {
      metadata: { name: `${name}-golden`, namespace: OPS },
    });
    seed(SECRETS, {
      metadata: { name: `${name}-ssh-key`, namespace: OPS },
      data: { id_ecdsa: Buffer.from(`${name} key`).toString('base64') },
    });
    seed(BUNDLES, {
      metadata: { name },
      spec: profile
        ? { arch: 'amd64', build: { releaseImage: 'quay.io/x/release@sha256:00', profile } }
        : { arch: 'amd64', version: '4.16.0' },
      status: {
        phase: 'Ready',
        diskSHA256: 'ab'.repeat(32),
        qcow2PVCNamespace: OPS,
        qcow2PVCRef: { name: `${name}-golden` },
        sshKeySecretRef: { name: `${name}-ssh-key` },
        ...(profile ? { build: { profile } } : {}),
      },
    });
    return golden;
  }

  const seedTurnkey = (name: string, bundle: string): ClusterInstance =>
    ports.api.seed<ClusterInstance>(INSTANCES, {
      metadata: { name, namespace: NS },
      spec: { type: 'crc', template: { crcBundleRef: { name: bundle } } },
    } as unknown as ClusterInstance);

  /** What a VM's template sets of the things a VM profile fixes. */
  const profileParts = (name: string): unknown => {
    const template = ports.api.peek<Platform>(VIRTUAL_MACHINES, name, NS)?.spec?.template as {
      spec: {
        domain: { firmware?: unknown; clock?: unknown; devices: object };
        networks?: unknown;
      };
    };
    const { domain, networks } = template.spec;
    return {
      firmware: domain.firmware,
      clock: domain.clock,
      interfaces: (domain.devices as { interfaces?: unknown }).interfaces,
      networks,
    };
  };

  it("makes a built bundle's VM on the profile its binding records, a downloaded one's as before", async () => {
    seedReadyBundle('built', 'crc-kubevirt-v1');
    seedReadyBundle('downloaded');
    seedTurnkey('on-built', 'built');
    seedTurnkey('on-downloaded', 'downloaded');

    await settle('on-built');
    await settle('on-downloaded');

    expect(instance('on-built')?.status?.crc?.bootKey?.vmProfile).toBe('crc-kubevirt-v1');
    expect(profileParts('on-built')).toEqual({
      firmware: { bootloader: { bios: {} } },
      clock: { utc: {} },
      interfaces: [{ name: 'default', masquerade: {} }],
      networks: [{ name: 'default', pod: {} }],
    });
    expect(instance('on-downloaded')?.status?.crc?.bootKey).toBeDefined();
    expect(instance('on-downloaded')?.status?.crc?.bootKey?.vmProfile).toBeUndefined();
    expect(profileParts('on-downloaded')).toEqual({
      firmware: undefined,
      clock: undefined,
      interfaces: undefined,
      networks: undefined,
    });
  });

  it('records a VM profile this operator does not know, and makes no disk or VM for it', async () => {
    // Built by a newer operator.
    const golden = seedReadyBundle('built', 'crc-kubevirt-v9');
    seedTurnkey('later', 'built');

    await settle('later');

    expect(instance('later')?.status?.crc?.bootKey).toMatchObject({
      pvcUID: golden.metadata?.uid,
      vmProfile: 'crc-kubevirt-v9',
    });
    const message =
      'CRCBundle "built" was built for VM profile "crc-kubevirt-v9", which this operator does not ' +
      'know (it knows crc-kubevirt-v1); run an operator version that knows "crc-kubevirt-v9", or ' +
      'use a bundle built for a known profile';
    expect(condition('later', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'UnknownVMProfile',
      message,
    });
    expect(ports.events.recorded).toContainEqual({
      object: 'ClusterInstance tenant/later',
      type: 'Warning',
      reason: 'UnknownVMProfile',
      message,
    });
    expect(ports.api.all(DATA_VOLUMES, NS)).toEqual([]);
    expect(ports.api.all(VIRTUAL_MACHINES, NS)).toEqual([]);
    expect(settledResult).toMatchObject({ requeueAfterMs: DEFAULT_INSTANCE_TIMINGS.recheckMs });
  });

  it('records a new hcp instance placement first, then creates its HostedCluster and NodePool', async () => {
    const seeded = seedHcp('hcp');

    const passes = await settle('hcp');

    expect(passes[0]).toEqual(['update ClusterInstance tenant/hcp']);
    // The placement, then the endpoint, each durable before anything embeds it.
    expect(passes[1]).toEqual(['status ClusterInstance tenant/hcp']);
    expect(passes[2]).toEqual(['status ClusterInstance tenant/hcp']);
    const placement = instance('hcp')?.status?.hyperShift;
    expect(placement?.hostedClusterName).toMatch(/^gc-hcp-[0-9a-f]+$/);
    expect(placement?.hostedClusterNamespace).toBe(NS);
    const hostedCluster = placement!.hostedClusterName!;
    const nodePool = placement!.nodePoolNames![0]!;
    expect(
      passes
        .slice(3)
        .flat()
        .filter((w) => w.startsWith('create'))
        .sort(),
    ).toEqual(
      [
        `create HostedCluster tenant/${hostedCluster}`,
        `create NodePool tenant/${nodePool}`,
        'create Secret tenant/hcp-kas-serving-cert',
      ].sort(),
    );
    const owner = { kind: 'ClusterInstance', uid: seeded.metadata?.uid, controller: true };
    expect(ports.api.peek<Platform>(HOSTED_CLUSTERS, hostedCluster, NS)).toMatchObject({
      metadata: { ownerReferences: [owner] },
      spec: { release: { image: 'quay.io/openshift-release:4.19.0' } },
    });
    expect(ports.api.peek<Platform>(NODE_POOLS, nodePool, NS)).toMatchObject({
      spec: { clusterName: hostedCluster },
    });
    for (const gate of ['HyperConvergedReady', 'MultiClusterEngineReady', 'WildcardRoutesAllowed'])
      expect(condition('hcp', gate)).toMatchObject({ status: 'True', reason: 'OperandReady' });
    expect(instance('hcp')?.status?.phase).toBe('Provisioning');
    expect(instance('hcp')?.status?.apiEndpoint).toMatch(
      new RegExp(`^https://api-hcp-[0-9a-f]+\\.${DOMAIN}$`),
    );
    expect(condition('hcp', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'HostedClusterNotAvailable',
    });
    expect(reasons()).toEqual(expect.arrayContaining(['HostedClusterCreated', 'NodePoolCreated']));
  });

  it('holds an hcp instance while the router refuses wildcard Routes, looking again after instance.platformRecheck', async () => {
    controller = build({ ...DEFAULT_INSTANCE_TIMINGS, platformRecheckMs: 5000 });
    seed(INGRESS_CONTROLLERS, {
      metadata: { name: 'default', namespace: 'openshift-ingress-operator' },
      spec: {},
    });
    seedHcp('early');

    expect(await settle('early')).toEqual([
      ['update ClusterInstance tenant/early'],
      ['status ClusterInstance tenant/early'],
    ]);

    expect(settledResult).toEqual({ requeueAfterMs: 5000 });
    expect(condition('early', 'WildcardRoutesAllowed')).toMatchObject({
      status: 'False',
      reason: 'WildcardRoutesNotAllowed',
    });
    expect(condition('early', 'MultiClusterEngineReady')).toMatchObject({ status: 'True' });
    expect(condition('early', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'WildcardRoutesNotAllowed',
    });
    // The message says which dependency and what to do about it.
    expect((condition('early', 'Ready') as { message: string }).message).toMatch(
      /^Platform dependencies are not ready: WildcardRoutesAllowed: .* allow them with: oc /,
    );
    // The router's admin must act: one Warning Event with the condition's message.
    expect(ports.events.recorded.filter((e) => e.reason === 'WildcardRoutesNotAllowed')).toEqual([
      expect.objectContaining({
        type: 'Warning',
        message: (condition('early', 'Ready') as { message: string }).message,
      }),
    ]);
    // Nothing is placed or created before the platform can serve it.
    expect(instance('early')?.status?.hyperShift).toBeUndefined();
    expect(ports.api.writes.filter((w) => w.startsWith('create'))).toEqual([]);
  });

  it('leaves an instance that names a pool alone until the pool authorized it, then provisions it', async () => {
    // Made as a tenant could make one (OLM's roles let them): it names a pool, with no authorization.
    const named = seedCrc('named');
    ports.api.seed<ClusterInstance>(INSTANCES, {
      ...named,
      spec: { ...named.spec, poolRef: { name: 'pool' } },
    });
    expect(await settle('named')).toEqual([]);
    expect(instance('named')?.metadata?.finalizers).toBeUndefined();
    expect(instance('named')?.status).toBeUndefined();

    // The pool's authorization, as it writes it right after creating its instance.
    const current = instance('named')!;
    await ports.client.updateStatus(INSTANCES, {
      ...current,
      status: {
        phase: 'Provisioning',
        provisioning: { startedAt: '2026-01-01T00:00:00Z', pool: 'pool' },
      },
    } as never);
    await pass('named');
    expect(instance('named')?.metadata?.finalizers).toEqual([FINALIZER_INSTANCE_CLEANUP]);
    await pass('named');
    expect(condition('named', 'ProvisioningAllowed')).toMatchObject({
      status: 'True',
      reason: 'ProvisioningAuthorized',
    });
    expect(instance('named')?.status?.provisioning).toMatchObject({ pool: 'pool' });
  });

  /** A pass that fails the instance: its error is thrown on, to be retried with backoff. */
  async function failingPass(name: string, reason: string): Promise<string[]> {
    const before = ports.api.writes.length;
    await expect(controller.reconcile(`${NS}/${name}`, context)).rejects.toMatchObject({ reason });
    return ports.api.writes.slice(before);
  }

  it("fails a crc instance whose VirtualMachine is another owner's, creating nothing", async () => {
    seed(VIRTUAL_MACHINES, { metadata: { name: 'taken', namespace: NS } });
    const seeded = seedCrc('taken');
    await pass('taken');

    expect(await failingPass('taken', 'ResourceOwnershipConflict')).toEqual([
      'status ClusterInstance tenant/taken',
    ]);
    expect(instance('taken')?.status?.phase).toBe('Failed');
    expect(condition('taken', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ResourceOwnershipConflict',
      message: `CRC resource VirtualMachine tenant/taken is not owned by ClusterInstance taken (UID ${seeded.metadata?.uid}); diagnostics in ConfigMap tenant/taken-diagnostics-${instance('taken')!.metadata!.uid!.slice(0, 8)}`,
    });
    // Retried, it fails the same way and writes nothing more.
    expect(await failingPass('taken', 'ResourceOwnershipConflict')).toEqual([]);
    expect(ports.api.writes.filter((w) => w.startsWith('create'))).toEqual([]);
  });

  it('fails an hcp instance whose API host another Route serves, after recording its placement', async () => {
    const host = apiHostname('taken', NS, DOMAIN);
    seed(ROUTES, { metadata: { name: 'squatter', namespace: 'other' }, spec: { host } });
    seedHcp('taken');
    await pass('taken');
    expect(await pass('taken')).toEqual(['status ClusterInstance tenant/taken']);

    expect(await failingPass('taken', 'APIEndpointConflict')).toEqual([
      'status ClusterInstance tenant/taken',
    ]);
    expect(instance('taken')?.status?.hyperShift?.hostedClusterName).toMatch(/^gc-taken-/);
    expect(instance('taken')?.status?.apiEndpoint).toBeUndefined();
    expect(condition('taken', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'APIEndpointConflict',
      message: `API hostname "${host}" is already used by Route other/squatter; diagnostics in ConfigMap tenant/taken-diagnostics-${instance('taken')!.metadata!.uid!.slice(0, 8)}`,
    });
    // The diagnostics bundle of the first failure is stored beside the passes, whenever it lands.
    const bundle = (w: string): boolean =>
      w.startsWith('create ConfigMap tenant/taken-diagnostics-');
    expect((await failingPass('taken', 'APIEndpointConflict')).filter((w) => !bundle(w))).toEqual(
      [],
    );
    expect(ports.api.writes.filter((w) => w.startsWith('create') && !bundle(w))).toEqual([]);
  });

  it('holds an instance of a namespace that has not opted in, creating nothing', async () => {
    ports.api.seed<KubeObject>(NAMESPACES, {
      ...ports.api.peek<KubeObject>(NAMESPACES, NS),
      metadata: { ...ports.api.peek<KubeObject>(NAMESPACES, NS)?.metadata, labels: {} },
    });
    seedCrc('gated');

    expect(await settle('gated')).toEqual([
      ['update ClusterInstance tenant/gated'],
      ['status ClusterInstance tenant/gated'],
    ]);

    const message = `New provisioning requires namespace label ${LABEL_NAMESPACE_ENABLED}="true"`;
    expect(condition('gated', 'ProvisioningAllowed')).toMatchObject({
      status: 'False',
      reason: 'NamespaceDisabled',
      message,
    });
    expect(condition('gated', 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NamespaceDisabled',
    });
    expect(instance('gated')?.status?.provisioning).toBeUndefined();
    // Neither the platform gate nor the topology ran.
    expect(condition('gated', 'HyperConvergedReady')).toBeUndefined();
    expect(ports.api.writes.filter((w) => w.startsWith('create'))).toEqual([]);
    // A person must act: one Warning Event, also from a restarted operator's passes.
    controller = build();
    await settle('gated');
    expect(ports.events.recorded.filter((e) => e.reason === 'NamespaceDisabled')).toEqual([
      {
        object: 'ClusterInstance tenant/gated',
        type: 'Warning',
        reason: 'NamespaceDisabled',
        message,
      },
    ]);
  });

  it('tears a deleted crc instance down: VM halted, then VM and disk deleted, then the finalizer goes', async () => {
    seedCrc('doomed');
    await settle('doomed');
    await ports.client.delete(INSTANCES, instance('doomed') as never);
    expect(instance('doomed')?.metadata?.deletionTimestamp).toBeDefined();
    const events = ports.events.recorded.length;

    // The VM is halted first (its VMI goes before the VM); the instance says it is cleaning up.
    expect(await pass('doomed')).toEqual([
      'update VirtualMachine tenant/doomed',
      'status ClusterInstance tenant/doomed',
    ]);
    expect(ports.api.peek<Platform>(VIRTUAL_MACHINES, 'doomed', NS)?.spec).toMatchObject({
      runStrategy: 'Halted',
    });
    expect(instance('doomed')?.status?.phase).toBe('Terminating');
    expect(condition('doomed', 'Terminating')).toMatchObject({
      status: 'True',
      reason: 'CleanupInProgress',
    });

    expect(await settle('doomed')).toEqual([
      [
        'delete VirtualMachine tenant/doomed',
        'delete DataVolume tenant/doomed-rootdisk',
        'update ClusterInstance tenant/doomed',
      ],
    ]);
    expect(instance('doomed')).toBeUndefined();
    expect(ports.api.peek(VIRTUAL_MACHINES, 'doomed', NS)).toBeUndefined();
    expect(ports.api.peek(DATA_VOLUMES, 'doomed-rootdisk', NS)).toBeUndefined();
    expect(ports.events.recorded.slice(events).map((e) => e.reason)).toEqual([]);
  });
});
