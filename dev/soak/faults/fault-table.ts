import { setTimeout as delay } from 'node:timers/promises';
import { PODS } from '../../../client/api/core-resources.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { VIRTUAL_MACHINE_INSTANCES } from '../../../operator/api/platform-resources.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { VmiObject } from '../../platform/host/platform-kinds.js';
import type { SeededRandom } from '../../support/seeded-random.js';
import type { SoakEnvironment } from '../soak-environment.js';
import { GITHUB_OUTAGES } from '../soak-github.js';
import type { SoakObserver } from '../soak-observer.js';
import type { FaultKind, PlannedFault } from '../soak-schedule.js';
import { SOAK } from '../soak-seed.js';
import { drainNode } from './node-drain.js';

export interface FaultContext {
  environment: SoakEnvironment;
  observer: SoakObserver;
  log: (line: string) => void;
}

/** What a fault did (for the log), or undefined when it found nothing to act on (skipped). */
type Inject = (
  context: FaultContext,
  fault: PlannedFault,
  random: SeededRandom,
) => Promise<string | undefined>;

/** How long a fault waits for a target (a started VMI, a crc instance without a disk yet). */
const TARGET_WAIT_MS = 60_000;
/** How long a DataVolume fault waits for its instance to fail before it lifts the injection. */
const FAILURE_WAIT_MS = 3 * 60_000;
const RELIST_MS = 2000;

const live = (object: KubeObject): boolean => !object.metadata?.deletionTimestamp;

/** One object of the soak's namespace that `fits`, listed again every 2 s up to TARGET_WAIT_MS. */
async function firstListed<T extends KubeObject>(
  { api }: SoakEnvironment,
  type: ResourceType,
  random: SeededRandom,
  fits: (object: T) => boolean,
): Promise<T | undefined> {
  const until = Date.now() + TARGET_WAIT_MS;
  for (;;) {
    // An apiserver that another fault restarts refuses the list for a moment: asked again.
    const listed = await api.list<T>(type, { namespace: SOAK.namespace }).catch((error: Error) => {
      if (Date.now() >= until) throw error;
      return { items: [] as T[] };
    });
    const target = random.pick(listed.items.filter((o) => live(o) && fits(o)));
    if (target || Date.now() >= until) return target;
    await delay(RELIST_MS);
  }
}

/** A target that went between its listing and the fault (404, or 409 for another of its name). */
async function orUndefined<T>(act: () => Promise<T>): Promise<T | undefined> {
  try {
    return await act();
  } catch (error) {
    if (isNotFound(error) || isConflict(error)) return undefined;
    throw error;
  }
}

/** Every fault kind of issue #35, and how it is done here (docs/soak.md#faults). */
export const FAULTS: Record<FaultKind, Inject> = {
  // SIGKILL: no shutdown of its own; the soak's kubelet stand-in starts it again a second later.
  'operator-sigkill': ({ environment }) => {
    const pid = environment.operator.pid;
    if (!pid) return Promise.resolve(undefined);
    process.kill(pid, 'SIGKILL');
    return Promise.resolve(`SIGKILLed the operator (pid ${pid})`);
  },
  // The same etcd, port and certificates: what clients see when an apiserver restarts.
  'apiserver-restart': async ({ environment }) => {
    await environment.plane.restartApiServer();
    return 'restarted the kube-apiserver';
  },
  'watch-delay': async ({ environment }, fault) => {
    await environment.proxy.hold(fault.durationMs);
    return `held what the apiserver sent the operator for ${fault.durationMs} ms`;
  },
  // What virt-handler reports when a guest dies under a started VMI (the platform's GuestFailed).
  'vmi-fail': async ({ environment }, _fault, random) => {
    const vmi = await firstListed(environment, VIRTUAL_MACHINE_INSTANCES, random, (v: VmiObject) =>
      ['Scheduled', 'Running'].includes(v.status?.phase ?? ''),
    );
    if (!vmi) return undefined;
    const patched = await orUndefined(() =>
      environment.api.patch(
        VIRTUAL_MACHINE_INSTANCES,
        // KubeVirt's VMI CRD has no status subresource: virt-handler writes the VMI itself.
        { name: vmi.metadata!.name!, namespace: SOAK.namespace },
        { status: { phase: 'Failed', reason: 'GuestFailed' } },
      ),
    );
    return patched && `failed VMI ${vmi.metadata!.name}`;
  },
  // The platform's own injection: CDI fails the import or clone of the instance's disk. The pool
  // reuses instance names, so the name leaves the injection set once this instance has failed.
  'datavolume-fail': async ({ environment, observer }) => {
    const failing = environment.platform.failingDataVolumes;
    const instance = await observer.whenInstance(
      (i: ClusterInstance) =>
        i.spec?.type === 'crc' &&
        !i.status?.leaseRef &&
        !i.status?.crc?.dataVolumeUID &&
        !failing.has(i.metadata!.name!),
      TARGET_WAIT_MS,
    );
    if (!instance) return undefined;
    const { name, uid } = instance.metadata as { name: string; uid: string };
    failing.add(name);
    const failed = await observer.whenInstance(
      (i) => i.metadata?.uid === uid && i.status?.phase === 'Failed',
      FAILURE_WAIT_MS,
    );
    failing.delete(name);
    return `the disk of ClusterInstance ${name} failed${failed ? '' : ' (not seen Failed)'}`;
  },
  'launcher-pod-delete': async ({ environment }, _fault, random) => {
    const pod = await firstListed(
      environment,
      PODS,
      random,
      (p: KubeObject) => p.metadata?.labels?.['kubevirt.io'] === 'virt-launcher',
    );
    if (!pod) return undefined;
    const deleted = await orUndefined(async () => {
      await environment.api.delete(PODS, pod.metadata!.name!, SOAK.namespace, {
        uid: pod.metadata!.uid!,
      });
      return true;
    });
    return deleted ? `deleted launcher pod ${pod.metadata!.name}` : undefined;
  },
  'node-drain': async ({ environment, log }, fault, random) => {
    const node = random.pick(environment.platform.nodeNames);
    if (!node) return undefined;
    const evicted = await drainNode(environment.api, node, fault.durationMs, log);
    return `drained node ${node} (${evicted} pods evicted), uncordoned it after ${fault.durationMs} ms`;
  },
  'github-break': async ({ environment }, fault, random) => {
    const outage = random.pick(GITHUB_OUTAGES)!;
    environment.github.breakWith(outage);
    await new Promise((resolve) => setTimeout(resolve, fault.durationMs));
    environment.github.breakWith(undefined);
    return `GitHub answered ${outage} for ${fault.durationMs} ms`;
  },
};
