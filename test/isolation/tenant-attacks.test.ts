import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import { EVENTS, PODS } from '../../client/api/core-resources.js';
import { NETWORK_POLICIES } from '../../operator/controllers/clusterinstance/crc/crc-network-policy.js';
import { HOSTED_CLUSTERS } from '../../operator/api/platform-resources.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import { handoffSecretName } from '../../operator/controllers/clusterinstance/crc/crc-naming.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { readStrictKubeconfig } from '../../operator/kube/strict-kubeconfig.js';
import type { Secret } from '../../operator/kube/workloads.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { CredentialListener } from '../support/credential-listener.js';
import { Tenant } from '../support/tenant.js';
import { sshLogin } from '../../dev/guest/ssh-login.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { createCrcPrerequisites } from '../support/fixtures/crc-prerequisites.js';

/**
 * What a tenant who may only read and write Secrets in the namespace can do to the operator's
 * crc and hcp instances: point a kubeconfig the operator reads at a server of their own with the
 * operator's token file. Nothing reaches that server, and nothing of it gets published.
 */
/** Gets a guest API of its own, and becomes Ready. */
const READY = 'ready';
/** Its guest API never answers: the agent never finishes, the handoff Secret stays empty. */
const STUCK = 'stuck';
/** An hcp pool: HyperShift's admin kubeconfig Secret sits in the namespace too. */
const HOSTED = 'hosted';
const world = useWorld({
  namespace: 'tenant-attacks',
  enabled: true,
  platform: {
    crc: { guestApi: (vmi) => (vmi.metadata?.name === `${READY}-0` ? 'per-guest' : 'never-ready') },
    hcp: true,
  },
  operator: true,
});
const { ns } = world;
const READY_TIMEOUT_MS = 240_000;

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const decode = (data: string | undefined): string => Buffer.from(data ?? '', 'base64').toString();

function crcPool(name: string): ClusterPool {
  return {
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name, namespace: ns.name },
    spec: {
      type: 'crc',
      maxSize: 1,
      minSize: 0,
      warmSpares: 1,
      template: {
        releaseImage: 'https://mirror.example.test/crc/4.16.0/crc.qcow2',
        bundleSSHKeyRef: { name: 'crc-bundle-ssh-key' },
        ocpVersion: '4.16.0',
        memory: '16Gi',
        cores: 4,
      },
    },
  };
}

interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
}
interface NetworkPolicySpec {
  podSelector: { matchLabels?: Record<string, string> };
  ingress: { from: Peer[]; ports: unknown[] }[];
}

let tenant: Tenant;
let listener: CredentialListener;
let dir: string;
/** Stands for the operator's ServiceAccount token file (what a pod mounts). */
let tokenFile: string;
const OPERATOR_TOKEN = `operator-token-${Date.now()}`;

/** The tenant's kubeconfig: their server, trusting their CA, with the operator's token file. */
function craftedKubeconfig(): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'guest',
        cluster: { server: listener.url, 'certificate-authority-data': b64(listener.ca) },
      },
    ],
    users: [{ name: 'admin', user: { tokenFile } }],
    contexts: [{ name: 'admin', context: { cluster: 'guest', user: 'admin' } }],
    'current-context': 'admin',
  });
}

/** Waits until the instance is as `until` says, and returns it. */
async function instanceWhen(
  name: string,
  description: string,
  until: (instance: ClusterInstance | undefined) => boolean,
  timeoutMs = READY_TIMEOUT_MS,
): Promise<ClusterInstance> {
  return (await waitFor<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace: ns.name,
    name,
    until,
    description: `${name} ${description}`,
    timeoutMs,
  }))!;
}

const isReady = (i: ClusterInstance | undefined): boolean => i?.status?.phase === 'Ready';
const rejected = (i: ClusterInstance | undefined): boolean =>
  i?.status?.conditions?.find((c) => c.type === 'Ready')?.reason === 'KubeconfigRejected';

interface CoreEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { name?: string };
}

/** Waits for an Event of `reason` on the instance, and returns it. */
async function event(instance: string, reason: string): Promise<CoreEvent> {
  const matches = (e: CoreEvent): boolean =>
    e.reason === reason && e.involvedObject?.name === instance;
  const events = await waitForList<CoreEvent>(ns.kubeConfig, {
    type: EVENTS,
    namespace: ns.name,
    until: (items) => items.some(matches),
    description: `a ${reason} Event on ${instance}`,
    timeoutMs: 60_000,
  });
  return events.find(matches)!;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tenant-attacks-'));
  tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, OPERATOR_TOKEN, { mode: 0o600 });
  listener = await CredentialListener.start();
  tenant = await Tenant.create(ns, ns.name, 'tenant-of-ci', [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
  ]);
  await createCrcPrerequisites(world.platform, ns.api, ns.name);
  await ns.api.create(POOLS, crcPool(READY));
  await ns.api.create(POOLS, crcPool(STUCK));
  await ns.api.create(POOLS, hcpPool(ns.name, HOSTED, { maxSize: 1, warmSpares: 1 }));
});

afterAll(async () => {
  await tenant?.close();
  await listener?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a tenant with only Secret rights in the namespace', () => {
  it('cannot get a handoff naming their server accepted: not Ready, KubeconfigRejected, nothing sent', async () => {
    const name = `${STUCK}-0`;
    const waiting = await instanceWhen(
      name,
      'to run its crc-agent',
      (i) => !!i?.status?.crc?.vmiUID && !!i.status.conditions?.some((c) => c.type === 'CRCAgent'),
    );
    const vmiUid = waiting.status!.crc!.vmiUID!;
    // The VMI UID is public (instance status); the operator made the handoff Secret, empty.
    await tenant.api.patch(
      SECRETS,
      { name: handoffSecretName(name, vmiUid), namespace: ns.name },
      {
        data: {
          kubeconfig: b64(craftedKubeconfig()),
          ocpVersion: b64('4.16.0'),
          vmiUID: b64(vmiUid),
        },
      },
    );
    const refused = await instanceWhen(name, 'to refuse the crafted handoff', rejected, 60_000);
    expect(refused.status!.phase).toBe('Provisioning');
    expect(refused.status!.kubeconfigSecretRef).toEqual({});
    const ready = refused.status!.conditions!.find((c) => c.type === 'Ready')!;
    expect(ready.status).toBe('False');
    expect(ready.message).toContain('users[0].user.tokenFile is not allowed');
    expect(await event(name, 'KubeconfigRejected')).toMatchObject({ type: 'Warning' });
    await expect(ns.api.get(SECRETS, `${name}-kubeconfig`, ns.name)).rejects.toMatchObject({
      status: 404,
    });
    expect(listener.received).toEqual([]);
  });

  it('cannot redirect the published kubeconfig: it is rewritten and reported, leases get the original', async () => {
    const name = `${READY}-0`;
    const ready = await instanceWhen(name, 'to be Ready', isReady);
    const published = await ns.api.get<Secret>(SECRETS, `${name}-kubeconfig`, ns.name);
    const original = decode(published.data?.kubeconfig);

    await tenant.api.patch(
      SECRETS,
      { name: `${name}-kubeconfig`, namespace: ns.name },
      { data: { kubeconfig: b64(craftedKubeconfig()) } },
    );
    // A lease asked for right now gets the instance's own kubeconfig, never the tenant's.
    await ns.api.create(LEASES, lease(ns.name, 'job-1', READY));
    expect(await event(name, 'KubeconfigRewritten')).toMatchObject({ type: 'Warning' });
    const restored = await waitFor<Secret>(ns.kubeConfig, {
      type: SECRETS,
      namespace: ns.name,
      name: `${name}-kubeconfig`,
      until: (s) => decode(s?.data?.kubeconfig) === original,
      description: 'the published kubeconfig to be rewritten',
      timeoutMs: 60_000,
    });
    expect(restored).toBeDefined();
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job-1',
      until: (l) => l?.status?.phase === 'Bound',
      timeoutMs: 60_000,
    });
    const copy = await ns.api.get<Secret>(SECRETS, 'job-1-kubeconfig', ns.name);
    expect(decode(copy.data?.kubeconfig)).toBe(original);
    // The original reaches nothing but the instance's endpoint, with inline credentials.
    const access = readStrictKubeconfig(original, { servers: [ready.status!.apiEndpoint!] });
    expect(access.server).toBe(ready.status!.apiEndpoint);
    const now = await ns.api.get<ClusterInstance>(INSTANCES, name, ns.name);
    expect(now.status?.phase).toBe('Ready');
    expect(listener.received).toEqual([]);
  });

  it("cannot slip a token file into HyperShift's admin kubeconfig: KubeconfigRejected, nothing sent", async () => {
    const name = `${HOSTED}-0`;
    const ready = await instanceWhen(name, 'to be Ready', isReady);
    const published = await ns.api.get<Secret>(SECRETS, `${name}-kubeconfig`, ns.name);
    const hostedCluster = await ns.api.get<
      KubeObject & { status?: { kubeconfig?: { name?: string } } }
    >(HOSTED_CLUSTERS, ready.status!.hyperShift!.hostedClusterName!, ns.name);
    const adminSecret = hostedCluster.status!.kubeconfig!.name!;
    await tenant.api.patch(
      SECRETS,
      { name: adminSecret, namespace: ns.name },
      { data: { kubeconfig: b64(craftedKubeconfig()) } },
    );
    // The next pass over the instance (any change of it or of its HostedCluster brings one).
    await ns.api.patch(
      INSTANCES,
      { name, namespace: ns.name },
      { metadata: { annotations: { 'test.guestcluster.opdev.io/pass': '1' } } },
    );
    const refused = await instanceWhen(name, 'to refuse the admin kubeconfig', rejected, 60_000);
    expect(refused.status!.phase).toBe('Provisioning');
    expect(refused.status!.conditions!.find((c) => c.type === 'Ready')!.message).toContain(
      `admin kubeconfig Secret ${ns.name}/${adminSecret} was refused: users[0].user.tokenFile is not allowed`,
    );
    expect(await event(name, 'KubeconfigRejected')).toMatchObject({ type: 'Warning' });
    const after = await ns.api.get<Secret>(SECRETS, `${name}-kubeconfig`, ns.name);
    expect(after.data).toEqual(published.data);
    expect(listener.received).toEqual([]);
  });
});

/** Whether a label selector's matchLabels select an object with these labels. */
const selects = (selector: { matchLabels?: Record<string, string> }, labels = {}): boolean =>
  Object.entries(selector.matchLabels ?? {}).every(
    ([key, value]) => (labels as Record<string, string>)[key] === value,
  );

describe("the guest's SSH, after the crc-agent handed it over", () => {
  const name = `${READY}-0`;
  let instance: ClusterInstance;
  beforeAll(async () => {
    instance = await instanceWhen(name, 'to be Ready', isReady);
  });

  it('refuses the bundle key, takes the instance key, and its host key is recorded for the VMI', async () => {
    const vmiUid = instance.status!.crc!.vmiUID!;
    const guest = world.platform.guests.guestOf(vmiUid)!;
    const login = { host: guest.address, port: guest.ssh.port, username: 'core' };
    await expect(
      sshLogin({ ...login, privateKey: world.platform.bundleKey.private }),
    ).rejects.toThrow(/All configured authentication methods failed/);
    const key = await ns.api.get<Secret>(SECRETS, `${name}-crc-ssh-key`, ns.name);
    await expect(sshLogin({ ...login, privateKey: decode(key.data?.id_ed25519) })).resolves.toBe(
      guest.ssh.hostKey,
    );
    expect(instance.status!.crc!.sshHostKey).toEqual({
      vmiUID: vmiUid,
      publicKey: guest.ssh.hostKey,
    });
  });

  it('lets only its own agent pods reach port 22 of its launcher pod (the selectors match the pods)', async () => {
    const policy = await ns.api.get<KubeObject & { spec: NetworkPolicySpec }>(
      NETWORK_POLICIES,
      `${name}-crc-guest`,
      ns.name,
    );
    expect(policy.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'ClusterInstance',
      uid: instance.metadata!.uid,
    });
    const [ssh, api] = policy.spec.ingress;
    expect(ssh!.ports).toEqual([{ protocol: 'TCP', port: 22 }]);
    expect(api!.ports).toEqual([{ protocol: 'TCP', port: 6443 }]);
    expect(api!.from.every((peer) => peer.namespaceSelector && !peer.podSelector)).toBe(true);
    const pods = (await ns.api.list<KubeObject>(PODS, { namespace: ns.name })).items;
    const launchers = pods.filter((p) => p.metadata?.labels?.['kubevirt.io'] === 'virt-launcher');
    const agents = pods.filter((p) => p.metadata?.labels?.['batch.kubernetes.io/job-name']);
    const of = (items: KubeObject[], instanceName: string): KubeObject[] =>
      items.filter((p) => p.metadata?.labels?.['opdev.io/cluster-instance'] === instanceName);
    // The real pods: the VM's launcher pod and the agent's Job pods, of this and another instance.
    expect(of(launchers, name)).toHaveLength(1);
    expect(of(launchers, `${STUCK}-0`)).toHaveLength(1);
    expect(of(agents, name).length).toBeGreaterThan(0);
    expect(of(agents, `${STUCK}-0`).length).toBeGreaterThan(0);
    const guarded = pods.filter((p) => selects(policy.spec.podSelector, p.metadata?.labels));
    expect(guarded).toEqual(of(launchers, name));
    const admitted = pods.filter((p) => selects(ssh!.from[0]!.podSelector!, p.metadata?.labels));
    expect(admitted).toEqual(of(agents, name));
  });
});
