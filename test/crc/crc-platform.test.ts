import https from 'node:https';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import ssh2 from 'ssh2';
import { PODS, PVCS } from '../../client/api/core-resources.js';
import { ROUTES } from '../../operator/api/platform-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { PersistentVolumeClaim, Pod } from '../../operator/kube/workloads.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import type {
  DataVolumeObject,
  PodStatusIp,
  VirtualMachineObject,
  VmiObject,
} from '../../dev/platform/host/platform-kinds.js';
import {
  DATA_VOLUMES,
  SERVICES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../dev/platform/host/platform-kinds.js';
import {
  DISK_FILE,
  readAuthorizedKeys,
  writeSimulatedDisk,
} from '../../dev/platform/disks/simulated-disk.js';
import type { RouteObject } from '../../dev/platform/router/simulated-router.js';
import { crcApiRoute, crcApiService, crcVirtualMachine, rootDisk } from './crc-objects.js';
import type { DiskSource } from './crc-objects.js';

const world = useWorld({
  namespace: 'crc-platform',
  // The platform's mechanics need no guest API control plane: the API port answers 503.
  platform: { crc: { guestApi: 'never-ready' } },
});
const { ns } = world;

const GI = 2 ** 30;
const IMPORT: DiskSource = { http: { url: 'https://mirror.example.test/crc/4.16.0/crc.qcow2' } };

async function createVm(instance: string, source: DiskSource = IMPORT): Promise<void> {
  await ns.api.create(DATA_VOLUMES, rootDisk(ns.name, instance, source));
  await ns.api.create(VIRTUAL_MACHINES, crcVirtualMachine(ns.name, instance));
}

const waitVmi = (name: string, until: (vmi: VmiObject | undefined) => boolean, what: string) =>
  waitFor<VmiObject>(ns.kubeConfig, {
    type: VIRTUAL_MACHINE_INSTANCES,
    namespace: ns.name,
    name,
    until,
    description: what,
  });

const ipOf = (vmi: VmiObject | undefined): string | undefined =>
  vmi?.status?.interfaces?.[0]?.ipAddress;

const runningWithIp = (vmi: VmiObject | undefined): boolean =>
  vmi?.status?.phase === 'Running' && !!ipOf(vmi);

function launcherPods(vm: string): Promise<(Pod & PodStatusIp)[]> {
  return ns.api
    .list<Pod & PodStatusIp>(PODS, {
      namespace: ns.name,
      labelSelector: `vm.kubevirt.io/name=${vm}`,
    })
    .then((list) => list.items);
}

/**
 * Whether the guest's sshd lets `core` in with this key: false when it refuses the key; any other
 * failure (no connection, a handshake timeout) is an error of its own, not an answer.
 */
function canLogIn(host: string, port: number, privateKey: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    client.once('ready', () => {
      client.end();
      resolve(true);
    });
    client.once('error', (error: Error & { level?: string }) =>
      error.level === 'client-authentication' ? resolve(false) : reject(error),
    );
    client.connect({ host, port, username: 'core', privateKey, readyTimeout: 30_000 });
  });
}

/** GET /readyz through the router, as a client that resolves the Route host to the router. */
function statusThroughRouter(host: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: world.platform.router.address.host,
        port: world.platform.router.address.port,
        servername: host,
        path: '/readyz',
        rejectUnauthorized: false,
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', (error) => resolve(error.message));
  });
}

describe('the simulated crc platform', () => {
  test('a VM with an imported disk runs a VMI with an IP, a launcher pod and a guest that accepts the disk key', async () => {
    await createVm('alpha');
    const dv = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'alpha-rootdisk',
      until: (d) => d?.status?.phase === 'Succeeded',
    });
    expect(dv!.status!.progress).toBe('100.0%');
    expect(dv!.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Bound', status: 'True' }),
        expect.objectContaining({ type: 'Ready', status: 'True' }),
        expect.objectContaining({ type: 'Running', status: 'False', reason: 'Completed' }),
      ]),
    );
    const claim = await ns.api.get<PersistentVolumeClaim>(PVCS, 'alpha-rootdisk', ns.name);
    expect(claim.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'DataVolume', uid: dv!.metadata!.uid, controller: true }),
    ]);
    // The `storage` API inflates a Filesystem claim by CDI's filesystem overhead.
    expect(claim.spec.resources!.requests!.storage).toBe(String(Math.ceil((80 * GI) / 0.945)));
    const folder = world.platform.volumePath(ns.name, 'alpha-rootdisk')!;
    expect(await readAuthorizedKeys(path.join(folder, DISK_FILE))).toBe(
      world.platform.bundleKey.public,
    );

    const vmi = await waitVmi('alpha', runningWithIp, 'VMI alpha Running with an IP');
    const vm = await ns.api.get<VirtualMachineObject>(VIRTUAL_MACHINES, 'alpha', ns.name);
    expect(vmi!.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'VirtualMachine', uid: vm.metadata!.uid, controller: true }),
    ]);
    expect(vmi!.metadata!.labels).toMatchObject({ 'opdev.io/cluster-instance': 'alpha' });
    const ip = ipOf(vmi)!;
    expect(ip).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(ip).not.toBe('127.0.0.1');

    const [pod, ...others] = await launcherPods('alpha');
    expect(others).toEqual([]);
    expect(pod!.metadata!.name).toMatch(/^virt-launcher-alpha-[a-z0-9]{5}$/);
    expect(pod!.metadata!.labels).toMatchObject({
      'kubevirt.io': 'virt-launcher',
      'vm.kubevirt.io/name': 'alpha',
    });
    expect(pod!.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'VirtualMachineInstance', uid: vmi!.metadata!.uid }),
    ]);
    expect(pod!.status).toMatchObject({ phase: 'Running', podIP: ip });

    const ready = await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'alpha',
      until: (v) => v?.status?.ready === true,
    });
    expect(ready!.status).toMatchObject({ printableStatus: 'Running', runStrategy: 'Always' });

    const guest = world.platform.guests.guestAt(ip)!;
    expect(await canLogIn(ip, guest.ssh.port, world.platform.bundleKey.private)).toBe(true);
    const stranger = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 }).private;
    expect(await canLogIn(ip, guest.ssh.port, stranger)).toBe(false);
  });

  test('the crc API Route reaches the guest through Service, launcher pod and VMI', async () => {
    await waitVmi('alpha', runningWithIp, 'VMI alpha Running');
    const host = `api-alpha.${world.platform.domain}`;
    await ns.api.create(SERVICES, crcApiService(ns.name, 'alpha'));
    await ns.api.create(ROUTES, crcApiRoute(ns.name, 'alpha', host));
    await waitFor<RouteObject>(ns.kubeConfig, {
      type: ROUTES,
      namespace: ns.name,
      name: 'alpha-crc-api',
      until: (r) => !!r?.status?.ingress?.[0]?.conditions?.some((c) => c.type === 'Admitted'),
    });
    // The guest's API answers (never ready in this file's guests): the path works end to end.
    expect(await statusThroughRouter(host)).toBe(503);
  });

  test('runStrategy Halted removes the VMI, its launcher pod and its guest; Always starts a new VMI', async () => {
    const before = await waitVmi('alpha', runningWithIp, 'VMI alpha Running');
    const ip = ipOf(before)!;
    await ns.api.patch(
      VIRTUAL_MACHINES,
      { name: 'alpha', namespace: ns.name },
      {
        spec: { runStrategy: 'Halted' },
      },
    );
    await waitVmi('alpha', (vmi) => vmi === undefined, 'VMI alpha gone');
    await waitForList<Pod>(ns.kubeConfig, {
      type: PODS,
      namespace: ns.name,
      labelSelector: 'vm.kubevirt.io/name=alpha',
      until: (pods) => pods.length === 0,
      description: 'launcher pods of alpha gone',
    });
    const halted = await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'alpha',
      until: (v) => v?.status?.printableStatus === 'Stopped',
    });
    expect(halted!.status).toMatchObject({ ready: false, created: false, runStrategy: 'Halted' });
    expect(world.platform.guests.guestAt(ip)).toBeUndefined();
    expect(await statusThroughRouter(`api-alpha.${world.platform.domain}`)).not.toBe(503);

    await ns.api.patch(
      VIRTUAL_MACHINES,
      { name: 'alpha', namespace: ns.name },
      {
        spec: { runStrategy: 'Always' },
      },
    );
    const after = await waitVmi('alpha', runningWithIp, 'VMI alpha Running again');
    expect(after!.metadata!.uid).not.toBe(before!.metadata!.uid);
  });

  test('a deleted VMI of a running VM is replaced by a new one (new UID, new pod)', async () => {
    const before = await waitVmi('alpha', runningWithIp, 'VMI alpha Running');
    const [oldPod] = await launcherPods('alpha');
    await ns.api.delete(VIRTUAL_MACHINE_INSTANCES, 'alpha', ns.name);
    const after = await waitVmi(
      'alpha',
      (vmi) => runningWithIp(vmi) && vmi!.metadata!.uid !== before!.metadata!.uid,
      'a new VMI alpha Running',
    );
    const pods = await waitForList<Pod>(ns.kubeConfig, {
      type: PODS,
      namespace: ns.name,
      labelSelector: 'vm.kubevirt.io/name=alpha',
      until: (list) => list.length === 1 && list[0]!.metadata!.uid !== oldPod!.metadata!.uid,
      description: 'one new launcher pod of alpha',
    });
    expect(pods[0]!.metadata!.ownerReferences![0]!.uid).toBe(after!.metadata!.uid);
    expect(world.platform.guests.guestOf(before!.metadata!.uid!)).toBeUndefined();
    expect(world.platform.guests.guestOf(after!.metadata!.uid!)).toBeDefined();
  });

  test('a PVC clone waits for its source to exist and be populated, then copies it once', async () => {
    await createVm('beta', { pvc: { namespace: ns.name, name: 'beta-golden' } });
    const waiting = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'beta-rootdisk',
      until: (d) => d?.status?.phase === 'CloneScheduled',
    });
    expect(waiting!.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'Running', status: 'False', reason: 'CloneWithoutSource' }),
      ]),
    );
    const vm = await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'beta',
      until: (v) => v?.status?.printableStatus === 'Provisioning',
    });
    expect(vm!.status).toMatchObject({ created: true, ready: false });
    // KubeVirt creates the VMI at once and holds it Pending, without a launcher pod, until the
    // standalone DataVolume it mounts is ready.
    const pending = await waitVmi(
      'beta',
      (v) => !!v?.status?.conditions?.some((c) => c.type === 'DataVolumesReady'),
      'VMI beta Pending with DataVolumesReady',
    );
    expect(pending!.status!.phase).toBe('Pending');
    expect(pending!.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'DataVolumesReady',
          status: 'False',
          reason: 'NotAllDVsReady',
        }),
      ]),
    );
    expect(await launcherPods('beta')).toEqual([]);

    // The golden content is written into a claim of its own, then a DataVolume fills the source
    // claim from it, as a bundle's golden disk is filled: the source claim is Bound well before
    // it is populated, and the clone must wait for the DataVolume to have Succeeded.
    await ns.api.create(PVCS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'beta-staging', namespace: ns.name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '35Gi' } } },
    });
    const staging = await world.platform.volumeWhenBound(ns.name, 'beta-staging');
    const goldenKey = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    await writeSimulatedDisk(path.join(staging, DISK_FILE), goldenKey.public);
    await mkdir(path.join(staging, 'extra'), { recursive: true });
    await writeFile(path.join(staging, 'extra', 'marker'), 'golden content');
    await ns.api.create(DATA_VOLUMES, {
      apiVersion: DATA_VOLUMES.apiVersion,
      kind: DATA_VOLUMES.kind,
      metadata: { name: 'beta-golden', namespace: ns.name },
      spec: {
        source: { pvc: { namespace: ns.name, name: 'beta-staging' } },
        storage: { resources: { requests: { storage: '35Gi' } } },
      },
    });

    const done = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'beta-rootdisk',
      until: (d) => d?.status?.phase === 'Succeeded',
    });
    expect(done!.status!.progress).toBe('100.0%');
    const copy = world.platform.volumePath(ns.name, 'beta-rootdisk')!;
    const copied = await stat(path.join(copy, DISK_FILE));
    expect(await readFile(path.join(copy, DISK_FILE))).toEqual(
      await readFile(path.join(staging, DISK_FILE)),
    );
    expect(await readFile(path.join(copy, 'extra', 'marker'), 'utf8')).toBe('golden content');

    // The guest booted from the clone accepts the golden disk's key, not the import key.
    const vmi = await waitVmi('beta', runningWithIp, 'VMI beta Running');
    expect(vmi!.metadata!.uid).toBe(pending!.metadata!.uid);
    expect(vmi!.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          type: 'DataVolumesReady',
          status: 'True',
          reason: 'AllDVsReady',
        }),
      ]),
    );
    const guest = world.platform.guests.guestAt(ipOf(vmi)!)!;
    expect(await canLogIn(ipOf(vmi)!, guest.ssh.port, goldenKey.private)).toBe(true);
    expect(await canLogIn(ipOf(vmi)!, guest.ssh.port, world.platform.bundleKey.private)).toBe(
      false,
    );
    // A finished clone is never copied again (under the guest that boots from it).
    expect((await stat(path.join(copy, DISK_FILE))).mtimeMs).toBe(copied.mtimeMs);
  });
});

describe('failure injection', () => {
  test("a failing import keeps its phase and reports the importer's error as CDI does; its VMI waits", async () => {
    world.platform.failingDataVolumes.add('gamma');
    await createVm('gamma');
    const failed = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'gamma-rootdisk',
      until: (d) => (d?.status?.restartCount ?? 0) > 0,
    });
    expect(failed!.status!.phase).toBe('ImportInProgress');
    const running = failed!.status!.conditions!.find((c) => c.type === 'Running');
    expect(running).toMatchObject({ status: 'False', reason: 'Error' });
    expect(running!.message).toMatch(/injected failure/);
    const vm = await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'gamma',
      until: (v) => v?.status?.printableStatus === 'DataVolumeError',
    });
    expect(vm!.status).toMatchObject({ ready: false, created: true });
    const vmi = await waitVmi('gamma', (v) => v?.status?.phase === 'Pending', 'VMI gamma Pending');
    expect(vmi!.status!.conditions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'DataVolumesReady', status: 'False' }),
      ]),
    );
    expect(await launcherPods('gamma')).toEqual([]);
  });

  test('an import from a local URL that cannot be read fails as CDI reports it', async () => {
    await ns.api.create(
      DATA_VOLUMES,
      rootDisk(ns.name, 'delta', { http: { url: 'http://127.0.0.1:9/missing.img' } }),
    );
    const failed = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'delta-rootdisk',
      until: (d) => (d?.status?.restartCount ?? 0) > 0,
    });
    expect(failed!.status!.phase).toBe('ImportInProgress');
    expect(failed!.status!.conditions!.find((c) => c.type === 'Running')).toMatchObject({
      status: 'False',
      reason: 'Error',
      message: expect.stringMatching(/^Unable to connect to http data source/),
    });
  });

  test("a clone into a claim smaller than its source is refused, as CDI's CSI clone refuses it", async () => {
    await ns.api.create(PVCS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'theta-golden', namespace: ns.name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '35Gi' } } },
    });
    await ns.api.create(DATA_VOLUMES, {
      ...rootDisk(ns.name, 'theta', { pvc: { namespace: ns.name, name: 'theta-golden' } }),
      spec: {
        source: { pvc: { namespace: ns.name, name: 'theta-golden' } },
        storage: { resources: { requests: { storage: '20Gi' } } },
      },
    });
    const refused = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'theta-rootdisk',
      until: (d) =>
        !!d?.status?.conditions?.some((c) => c.type === 'Running' && c.reason === 'Error'),
    });
    expect(refused!.status!.phase).toBe('CloneScheduled');
    const target = Math.ceil((20 * GI) / 0.945);
    expect(refused!.status!.conditions!.find((c) => c.type === 'Running')!.message).toBe(
      `target resources requests storage size is smaller than the source ${target} < ${35 * GI}`,
    );
  });

  test('a VMI of a noIp VM runs without an IP and no guest answers', async () => {
    world.platform.noIp.add('epsilon');
    await createVm('epsilon');
    const vmi = await waitVmi(
      'epsilon',
      (v) => v?.status?.phase === 'Running',
      'VMI epsilon Running',
    );
    expect(vmi!.status!.interfaces).toEqual([{ name: 'default', infoSource: 'domain' }]);
    const [pod] = await launcherPods('epsilon');
    expect(pod!.status?.phase).toBe('Running');
    expect(world.platform.guests.guestAt(pod!.status!.podIP!)).toBeUndefined();
  });

  test('an unadmitted Route gets no ingress status and passes no traffic', async () => {
    await waitVmi('alpha', runningWithIp, 'VMI alpha Running');
    world.platform.unadmittedRoutes.add('zeta-crc-api');
    const host = `api-zeta.${world.platform.domain}`;
    await ns.api.create(ROUTES, {
      ...crcApiRoute(ns.name, 'zeta', host),
      spec: { ...crcApiRoute(ns.name, 'zeta', host).spec, to: { name: 'alpha-crc-api' } },
    } as KubeObject);
    // A Route created after it is admitted: the router has seen both by then.
    await ns.api.create(ROUTES, {
      ...crcApiRoute(ns.name, 'eta', `api-eta.${world.platform.domain}`),
      spec: {
        ...crcApiRoute(ns.name, 'eta', `api-eta.${world.platform.domain}`).spec,
        to: { name: 'alpha-crc-api' },
      },
    } as KubeObject);
    await waitFor<RouteObject>(ns.kubeConfig, {
      type: ROUTES,
      namespace: ns.name,
      name: 'eta-crc-api',
      until: (r) => !!r?.status?.ingress,
    });
    const zeta = await ns.api.get<RouteObject>(ROUTES, 'zeta-crc-api', ns.name);
    expect(zeta.status?.ingress).toBeUndefined();
    expect(await statusThroughRouter(host)).not.toBe(503);
    expect(await statusThroughRouter(`api-eta.${world.platform.domain}`)).toBe(503);
  });
});

describe('what a bundle build needs of the simulated KubeVirt and CDI', () => {
  test('RerunOnFailure: a guest poweroff ends the VMI Succeeded and the VM stays stopped; Halted, then RerunOnFailure, starts a new VMI', async () => {
    await ns.api.create(DATA_VOLUMES, rootDisk(ns.name, 'rerun', IMPORT));
    const vm = crcVirtualMachine(ns.name, 'rerun');
    vm.spec!.runStrategy = 'RerunOnFailure';
    await ns.api.create(VIRTUAL_MACHINES, vm);
    const first = await waitVmi('rerun', runningWithIp, 'VMI rerun Running');
    const [pod] = await launcherPods('rerun');
    // The launcher pod mounts the root disk's claim, as virt-controller's template service does.
    expect(pod!.spec.volumes).toEqual([
      { name: 'rootdisk', persistentVolumeClaim: { claimName: 'rerun-rootdisk' } },
    ]);

    world.platform.kubevirt.powerOff(first!.metadata!.uid!);
    await waitVmi('rerun', (vmi) => vmi === undefined, 'the powered-off VMI removed');
    const stopped = await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'rerun',
      until: (v) => v?.status?.printableStatus === 'Stopped' && !v.status.created,
    });
    expect(stopped!.status!.runStrategy).toBe('RerunOnFailure');
    expect(world.platform.guests.guestAt(ipOf(first)!)).toBeUndefined();

    await ns.api.patch(
      VIRTUAL_MACHINES,
      { name: 'rerun', namespace: ns.name },
      { spec: { runStrategy: 'Halted' } },
    );
    await waitFor<VirtualMachineObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINES,
      namespace: ns.name,
      name: 'rerun',
      until: (v) => v?.status?.runStrategy === 'Halted',
    });
    await ns.api.patch(
      VIRTUAL_MACHINES,
      { name: 'rerun', namespace: ns.name },
      { spec: { runStrategy: 'RerunOnFailure' } },
    );
    const second = await waitVmi('rerun', runningWithIp, 'a new VMI of rerun');
    expect(second!.metadata!.uid).not.toBe(first!.metadata!.uid);
  });

  test('a clone waits while a launcher pod mounts its source, and copies once the VM is halted; a blank DataVolume is an empty disk', async () => {
    await ns.api.create(DATA_VOLUMES, rootDisk(ns.name, 'blank', { blank: {} }));
    await ns.api.create(VIRTUAL_MACHINES, crcVirtualMachine(ns.name, 'blank'));
    await waitVmi('blank', (vmi) => vmi?.status?.phase === 'Running', 'VMI blank Running');
    const disk = await readFile(
      path.join(world.platform.volumePath(ns.name, 'blank-rootdisk')!, DISK_FILE),
    );
    expect(disk.length).toBeGreaterThan(0);
    expect(disk.every((byte) => byte === 0)).toBe(true);

    await ns.api.create(DATA_VOLUMES, {
      ...rootDisk(ns.name, 'blank-copy', { pvc: { namespace: ns.name, name: 'blank-rootdisk' } }),
    });
    const waiting = await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'blank-copy-rootdisk',
      until: (d) => d?.status?.conditions?.some((c) => c.reason === 'CloneSourceInUse') ?? false,
      description: 'the clone waiting for its source to be free',
    });
    expect(waiting!.status!.phase).toBe('CloneScheduled');
    expect(waiting!.status!.conditions!.find((c) => c.type === 'Running')!.message).toMatch(
      /^pod .*\/virt-launcher-blank-.* using PersistentVolumeClaim blank-rootdisk$/,
    );
    await ns.api.patch(
      VIRTUAL_MACHINES,
      { name: 'blank', namespace: ns.name },
      { spec: { runStrategy: 'Halted' } },
    );
    await waitFor<DataVolumeObject>(ns.kubeConfig, {
      type: DATA_VOLUMES,
      namespace: ns.name,
      name: 'blank-copy-rootdisk',
      until: (d) => d?.status?.phase === 'Succeeded',
    });
    expect(
      await stat(path.join(world.platform.volumePath(ns.name, 'blank-copy-rootdisk')!, DISK_FILE)),
    ).toMatchObject({ size: disk.length });
  });
});
