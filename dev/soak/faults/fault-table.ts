import { PODS } from '../../../client/api/core-resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { VIRTUAL_MACHINE_INSTANCES } from '../../../operator/api/platform-resources.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { VmiObject } from '../../platform/host/platform-kinds.js';
import type { Prng } from '../prng.js';
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
  random: Prng,
) => Promise<string | undefined>;

/** How long a DataVolume fault waits for a crc instance whose disk is still to be made. */
const DISK_TARGET_WAIT_MS = 60_000;

const live = (object: KubeObject): boolean => !object.metadata?.deletionTimestamp;

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
  // What virt-handler reports when a guest dies under a running VMI (the platform's GuestFailed).
  'vmi-fail': async ({ environment }, _fault, random) => {
    const vmis = await environment.api.list<VmiObject>(VIRTUAL_MACHINE_INSTANCES, {
      namespace: SOAK.namespace,
    });
    const vmi = random.pick(vmis.items.filter((v) => live(v) && v.status?.phase === 'Running'));
    if (!vmi) return undefined;
    const patched = await orUndefined(() =>
      environment.api.patch(
        VIRTUAL_MACHINE_INSTANCES,
        { name: vmi.metadata!.name!, namespace: SOAK.namespace, subresource: 'status' },
        { status: { phase: 'Failed', reason: 'GuestFailed' } },
      ),
    );
    return patched && `failed VMI ${vmi.metadata!.name}`;
  },
  // The platform's own injection: CDI fails the import or clone of the instance's disk.
  'datavolume-fail': async ({ environment, observer }) => {
    const instance = await observer.whenInstance(
      (i: ClusterInstance) =>
        i.spec?.type === 'crc' &&
        !i.status?.crc?.dataVolumeUID &&
        !environment.platform.failingDataVolumes.has(i.metadata!.name!),
      DISK_TARGET_WAIT_MS,
    );
    if (!instance) return undefined;
    environment.platform.failingDataVolumes.add(instance.metadata!.name!);
    return `the disk of ClusterInstance ${instance.metadata!.name} will fail`;
  },
  'launcher-pod-delete': async ({ environment }, _fault, random) => {
    const pods = await environment.api.list<KubeObject>(PODS, {
      namespace: SOAK.namespace,
      labelSelector: 'kubevirt.io=virt-launcher',
    });
    const pod = random.pick(pods.items.filter(live));
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
