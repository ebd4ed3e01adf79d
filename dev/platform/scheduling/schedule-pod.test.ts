import { describe, expect, it } from '@jest/globals';
import { launcherRequests } from './launcher-resources.js';
import type { SchedulingNode, SchedulingPodSpec } from './node-filters.js';
import { tolerates } from './node-filters.js';
import { podRequests, ZERO } from './resources.js';
import { schedulePod } from './schedule-pod.js';

const GI = 2 ** 30;
const node = (name: string, over: Partial<SchedulingNode> = {}): SchedulingNode => ({
  name,
  labels: {},
  taints: [],
  unschedulable: false,
  ready: true,
  allocatable: { milliCpu: 8000, memory: 32 * GI, pods: 110 },
  requested: ZERO,
  ...over,
});
const asking = (cpu: string, memory: string, extra: SchedulingPodSpec = {}): SchedulingPodSpec => ({
  containers: [{ resources: { requests: { cpu, memory } } }],
  ...extra,
});
const tail = (n: number, preemption: string): string =>
  `no new claims to deallocate, preemption: 0/${n} nodes are available: ${preemption}.`;

describe('schedulePod', () => {
  it('places a pod that fits on the node left with the most room', () => {
    const busy = node('a', { requested: { milliCpu: 6000, memory: 20 * GI, pods: 3 } });
    expect(schedulePod(asking('1', '4Gi'), [busy, node('b')])).toEqual({ node: 'b' });
  });

  it("counts and sorts the reasons in kube-scheduler's words", () => {
    const nodes = [
      node('small', { allocatable: { milliCpu: 8000, memory: 8 * GI, pods: 110 } }),
      node('gpu', { labels: { gpu: 'yes' }, taints: [{ key: 'gpu', effect: 'NoSchedule' }] }),
      node('other', { labels: { zone: 'b' } }),
      node('other2', { labels: { zone: 'b' } }),
    ];
    const spec = asking('1', '16Gi', { nodeSelector: {} });
    spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['b'] }] },
          ],
        },
      },
    };
    expect(schedulePod(spec, nodes)).toEqual({
      unschedulable:
        "0/4 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector. " +
        tail(
          4,
          '1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling',
        ),
    });
  });

  it('rejects a cordoned node, a node that is not Ready, and a full one', () => {
    const nodes = [
      node('cordoned', { unschedulable: true }),
      node('down', { ready: false }),
      node('full', { requested: { milliCpu: 7500, memory: 0, pods: 110 } }),
    ];
    expect(schedulePod(asking('1', '1Gi'), nodes)).toEqual({
      unschedulable:
        '0/3 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. ' +
        tail(
          3,
          '1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling',
        ),
    });
  });

  it('takes a node whose labels match In and Exists, and whose taints are tolerated', () => {
    const tainted = node('t', {
      labels: { role: 'vm', ssd: '' },
      taints: [{ key: 'dedicated', value: 'vm', effect: 'NoExecute' }],
    });
    const spec = asking('1', '1Gi', {
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'vm', effect: 'NoExecute' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'role', operator: 'In', values: ['db'] }] },
              {
                matchExpressions: [
                  { key: 'role', operator: 'In', values: ['vm'] },
                  { key: 'ssd', operator: 'Exists' },
                  { key: 'hdd', operator: 'DoesNotExist' },
                ],
              },
            ],
          },
        },
      },
    });
    expect(schedulePod(spec, [tainted])).toEqual({ node: 't' });
  });

  it('says so when the platform has no node', () => {
    expect(schedulePod(asking('1', '1Gi'), [])).toEqual({
      unschedulable: 'no nodes available to schedule pods',
    });
  });
});

describe('tolerates', () => {
  const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  it.each([
    [{ key: 'k', operator: 'Equal', value: 'v' }, true],
    [{ key: 'k', value: 'v', effect: 'NoSchedule' }, true],
    [{ key: 'k', value: 'w' }, false],
    [{ key: 'k', operator: 'Exists' }, true],
    [{ operator: 'Exists' }, true],
    [{ operator: 'Exists', effect: 'NoExecute' }, false],
    [{ key: '', operator: 'Equal', value: 'v' }, false],
  ])('%j tolerates k=v:NoSchedule: %s', (toleration, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });
});

describe('requests', () => {
  it('sums containers, takes the largest init container, and counts a limit as a request', () => {
    const spec: SchedulingPodSpec = {
      containers: [
        { resources: { requests: { cpu: '500m', memory: '1Gi' } } },
        { resources: { limits: { cpu: '1', memory: '1Gi' } } },
      ],
      initContainers: [{ resources: { requests: { cpu: '4', memory: '512Mi' } } }],
    };
    expect(podRequests(spec)).toEqual({ milliCpu: 4000, memory: 2 * GI, pods: 1 });
  });

  it("renders a VMI's launcher requests as virt-controller does", () => {
    // crc: requests memory 16Gi and cpu 4: 16Gi + 280Mi + 4 × 8Mi + 16Gi/512.
    expect(
      launcherRequests({ domain: { resources: { requests: { memory: '16Gi', cpu: '4' } } } }),
    ).toEqual({ cpu: '4', memory: String(16 * GI + 312 * 2 ** 20 + (16 * GI) / 512) });
    // hcp worker: guest memory 8Gi, 2 cores: a fifth of a CPU.
    expect(launcherRequests({ domain: { memory: { guest: '8Gi' }, cpu: { cores: 2 } } })).toEqual({
      cpu: '200m',
      memory: String(8 * GI + 296 * 2 ** 20 + (8 * GI) / 512),
    });
  });
});
