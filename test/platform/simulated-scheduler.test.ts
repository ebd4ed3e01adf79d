import { describe, expect, test } from '@jest/globals';
import { PODS } from '../../client/api/core-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { useWorld } from '../support/world.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { VirtualMachineObject, VmiObject } from '../../dev/platform/host/platform-kinds.js';
import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../dev/platform/host/platform-kinds.js';
import type { SchedulingPod } from '../../dev/platform/scheduling/scheduling-nodes.js';

// Two nodes: a small one, and a big one tainted for other work.
const world = useWorld({
  namespace: 'sim-scheduler',
  platform: {
    crc: { guestApi: 'never-ready' },
    nodes: [
      { cpu: '8', memory: '24Gi' },
      {
        suffix: 'gpu',
        cpu: '64',
        memory: '256Gi',
        labels: { gpu: 'true' },
        taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }],
      },
    ],
  },
});
const { ns } = world;

const TAIL = 'no new claims to deallocate, preemption: 0/2 nodes are available:';
const NOT_HELPFUL = '2 Preemption is not helpful for scheduling.';

type VmSpec = NonNullable<NonNullable<VirtualMachineObject['spec']>['template']>['spec'] &
  Record<string, unknown>;

/** A VM like a crc instance's (16Gi, 4 cores) on a blank disk, its VMI spec changed. */
async function createVm(name: string, change: (spec: VmSpec) => void = () => undefined) {
  const spec: VmSpec = {
    domain: {
      resources: { requests: { memory: '16Gi', cpu: '4' } },
      devices: { disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }] },
    },
    volumes: [{ name: 'rootdisk', dataVolume: { name: `${name}-rootdisk` } }],
  };
  change(spec);
  await ns.api.create(DATA_VOLUMES, {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: { name: `${name}-rootdisk`, namespace: ns.name },
    spec: { source: { blank: {} }, storage: { resources: { requests: { storage: '1Gi' } } } },
  } as KubeObject);
  await ns.api.create(VIRTUAL_MACHINES, {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: { name, namespace: ns.name },
    spec: { runStrategy: 'Always', template: { spec } },
  });
}

const waitVmi = (name: string, until: (vmi: VmiObject | undefined) => boolean, what: string) =>
  waitFor<VmiObject>(ns.kubeConfig, {
    type: VIRTUAL_MACHINE_INSTANCES,
    namespace: ns.name,
    name,
    until,
    description: `VMI ${name} ${what}`,
  });

const podScheduled = (object: { status?: { conditions?: unknown[] } } | undefined) =>
  (
    object?.status?.conditions as
      { type: string; status: string; reason?: string; message?: string }[] | undefined
  )?.find((c) => c.type === 'PodScheduled');

const running = (vmi: VmiObject | undefined): boolean => vmi?.status?.phase === 'Running';

/** The VMI waits in Scheduling with this message; its launcher pod is Pending with it too. */
async function expectUnschedulable(name: string, message: string): Promise<void> {
  const vmi = await waitVmi(name, (v) => podScheduled(v)?.status === 'False', 'unschedulable');
  expect(vmi?.status?.phase).toBe('Scheduling');
  expect(podScheduled(vmi)).toMatchObject({ reason: 'Unschedulable', message });
  expect(vmi?.status?.interfaces ?? []).toEqual([]);
  expect(vmi?.status?.nodeName).toBeUndefined();
  const pods = await ns.api.list<SchedulingPod & KubeObject>(PODS, {
    namespace: ns.name,
    labelSelector: `vm.kubevirt.io/name=${name}`,
  });
  expect(pods.items).toHaveLength(1);
  expect(pods.items[0]!.spec.nodeName).toBeUndefined();
  expect(pods.items[0]!.status?.phase).toBe('Pending');
  expect(podScheduled(pods.items[0])).toMatchObject({
    status: 'False',
    reason: 'Unschedulable',
    message,
  });
}

describe('the simulated scheduler', () => {
  test('a VMI that fits runs on the node it was bound to', async () => {
    await createVm('fits');
    const vmi = await waitVmi('fits', running, 'Running');
    const [small] = world.platform.nodeNames;
    expect(vmi?.status?.nodeName).toBe(small);
    const pods = await ns.api.list<SchedulingPod & KubeObject>(PODS, {
      namespace: ns.name,
      labelSelector: 'vm.kubevirt.io/name=fits',
    });
    expect(pods.items[0]!.spec.nodeName).toBe(small);
    expect(podScheduled(pods.items[0])?.status).toBe('True');
  });

  test('a VMI that asks for more memory than any node has stays Scheduling', async () => {
    await createVm('huge', (spec) => {
      spec.domain!.resources = { requests: { memory: '300Gi', cpu: '4' } };
    });
    await expectUnschedulable(
      'huge',
      `0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s). ${TAIL} 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.`,
    );
  });

  test('a VMI whose nodeSelector matches no node stays Scheduling', async () => {
    await createVm('nowhere', (spec) => {
      spec.nodeSelector = { zone: 'nowhere' };
    });
    await expectUnschedulable(
      'nowhere',
      `0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s). ${TAIL} ${NOT_HELPFUL}`,
    );
  });

  test('a tainted node takes only a VMI that tolerates its taint', async () => {
    await createVm('intolerant', (spec) => {
      spec.nodeSelector = { gpu: 'true' };
    });
    await createVm('tolerant', (spec) => {
      spec.nodeSelector = { gpu: 'true' };
      spec.tolerations = [
        { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      ];
    });
    await expectUnschedulable(
      'intolerant',
      `0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s). ${TAIL} ${NOT_HELPFUL}`,
    );
    const tolerant = await waitVmi('tolerant', running, 'Running');
    expect(tolerant?.status?.nodeName).toBe(world.platform.nodeNames[1]);
  });

  test('a VMI that fits nowhere runs once a node with room is added', async () => {
    const big = await world.platform.addNode({ suffix: 'big', cpu: '64', memory: '512Gi' });
    const vmi = await waitVmi('huge', running, 'Running once a node is added');
    expect(vmi?.status?.nodeName).toBe(big);
    expect(podScheduled(vmi)).toBeUndefined();
  });
});
