import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { PODS, PVCS } from '../../../client/api/core-resources.js';
import { isAlreadyExists } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { PersistentVolumeClaim, Pod } from '../../../operator/kube/workloads.js';
import type { Informer } from '../../../operator/runtime/informer.js';
import { SimulatorHost } from '../host/simulator-host.js';
import type { Condition, DataVolumeObject } from '../host/platform-kinds.js';
import { DATA_VOLUMES } from '../host/platform-kinds.js';
import { claimRequestBytes, cloneSizeProblem } from './cdi-storage-rules.js';
import { withTransitions, writeStatus } from '../host/platform-status.js';
import {
  boundCondition,
  copyClaim,
  importDisk,
  ready,
  running,
  writeBlankDisk,
} from './cdi-transfers.js';
import { claimsOf, podsUsingClaim } from './cdi-source-in-use.js';

export interface SimulatedCdiOptions {
  kubeConfig: ClusterAccess;
  /** DataVolumes in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  /** The folder of a Bound claim's volume (the simulated storage of its namespace). */
  volumePath: (namespace: string, claim: string) => string | undefined;
  /**
   * What an HTTP import from a URL that is not a local test server yields: a small disk whose
   * `core` user accepts these keys (as a real CRC disk image accepts its bundle's key).
   */
  importedDiskKeys: () => string;
  /**
   * Failure injection: a DataVolume for which this is true fails its import or clone the way CDI
   * reports it (see DataVolumePass.importerFailed and failed).
   */
  fails?: (dataVolume: DataVolumeObject) => boolean;
  /**
   * Failure injection: a DataVolume for which this is true stalls in its transfer, as an import
   * from a server that stops sending does: InProgress, its importer pod Running, the progress
   * never moving.
   */
  stalls?: (dataVolume: DataVolumeObject) => boolean;
}

type Step = {
  phase: string;
  progress?: string;
  restartCount?: number;
  conditions: Omit<Condition, 'lastTransitionTime'>[];
};

/**
 * CDI's DataVolume controller and importer/cloner pods, simulated: a DataVolume gets a claim of its
 * name (owned by it, its request inflated by the filesystem overhead as CDI's `storage` API does)
 * that the simulated storage binds; then an HTTP import writes `disk.img` into the claim's folder
 * (fetched when the URL is a local test server, else a small disk that accepts
 * `importedDiskKeys`), a blank one writes an empty disk, and a PVC clone copies the Bound source
 * claim's folder (the DataVolume waits in CloneScheduled while the source is missing, not Bound,
 * still being filled by its own DataVolume, or mounted by a pod that has not completed, as CDI's
 * IsSourceClaimReady refuses a source in use). Every simulated storage class is a CSI one: a clone goes through CDI's clone
 * populator, which refuses a target smaller than its source. Phases and conditions follow CDI's:
 * ImportScheduled/CloneScheduled, ImportInProgress/CloneInProgress, Succeeded with progress
 * "100.0%". An error never makes the phase Failed (CDI sets that only for a lost claim, which
 * this storage never loses): it shows in the Running condition, as real CDI reports it.
 */
export class SimulatedCdi {
  private constructor(private readonly host: SimulatorHost) {}

  static async start(options: SimulatedCdiOptions): Promise<SimulatedCdi> {
    const host = new SimulatorHost(options.kubeConfig, {
      retryBackoff: { baseMs: 50, maxMs: 2000, jitter: 0.1 },
    });
    const dataVolumes = host.informer<DataVolumeObject>(DATA_VOLUMES);
    /** The DataVolumes that clone the claim of this name and namespace. */
    const clonesOf = (source: KubeObject): string[] =>
      dataVolumes
        .list(
          (dv) =>
            dv.spec?.source?.pvc?.name === source.metadata?.name &&
            (dv.spec?.source?.pvc?.namespace ?? dv.metadata?.namespace) ===
              source.metadata?.namespace,
        )
        .map((dv) => `${dv.metadata!.namespace}/${dv.metadata!.name}`);
    const pods = host.informer<Pod>(PODS);
    host.addController({
      name: 'simulated-cdi-datavolumes',
      forType: DATA_VOLUMES,
      owns: [PVCS],
      watches: [
        // A clone waits while a pod mounts its source (IsSourceClaimReady).
        {
          type: PODS,
          map: (pod) =>
            claimsOf(pod).flatMap((claim) =>
              clonesOf({ metadata: { name: claim, namespace: pod.metadata?.namespace } }),
            ),
        },
        // A clone waits for its source claim to exist, be Bound and be populated (when a
        // DataVolume fills the source, that DataVolume has Succeeded; its claim has its name).
        { type: PVCS, map: (claim) => clonesOf(claim) },
        { type: DATA_VOLUMES, map: (source) => clonesOf(source) },
      ],
      reconcile: async (key) => {
        const dv = dataVolumes.get(key);
        if (!dv || dv.metadata?.deletionTimestamp) return;
        if (!options.servesNamespace(dv.metadata!.namespace!)) return;
        return new DataVolumePass(host, options, dv, pods).run();
      },
    });
    await host.start();
    return new SimulatedCdi(host);
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }
}

class DataVolumePass {
  private readonly namespace: string;
  private readonly name: string;

  constructor(
    private readonly host: SimulatorHost,
    private readonly options: SimulatedCdiOptions,
    private dv: DataVolumeObject,
    private readonly pods: Informer<Pod>,
  ) {
    this.namespace = dv.metadata!.namespace!;
    this.name = dv.metadata!.name!;
  }

  /** One pass; asks to come back soon while the storage has not yet seen its claim Bound. */
  async run(): Promise<{ requeueAfterMs?: number }> {
    const phase = this.dv.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed' || this.stoppedByError()) return {};
    const { clone, url, blank } = this.source();
    if (!clone && !url && !blank) {
      await this.failed('Pending', 'the DataVolume has neither an http, a blank nor a pvc source');
      return {};
    }
    if (clone && !(await this.sourceReady(clone))) return {};
    const scheduled = clone ? 'CloneScheduled' : 'ImportScheduled';
    const target = await this.ensureClaim();
    const bound = target.status?.phase === 'Bound';
    const folder = bound ? this.options.volumePath(this.namespace, this.name) : undefined;
    if (!folder) {
      await this.step({
        phase: scheduled,
        conditions: [
          boundCondition(this.name, false),
          ready(false, scheduled),
          running('False', 'Pending'),
        ],
      });
      // Bound here, but the storage's own cache has not seen it yet: no event will follow.
      return bound ? { requeueAfterMs: 100 } : {};
    }
    await this.transfer({ clone, url, blank, target }, folder);
    return {};
  }

  /** The source: a clone's source claim key, an import URL, or a blank disk. */
  private source(): { clone?: string; url?: string; blank?: boolean } {
    const source = this.dv.spec?.source;
    const pvc = source?.pvc;
    if (pvc?.name) return { clone: `${pvc.namespace ?? this.namespace}/${pvc.name}` };
    if (source?.blank) return { blank: true };
    return { url: source?.http?.url };
  }

  /** Whether a clone's source claim is Bound and populated; else the DataVolume says what it waits for. */
  private async sourceReady(sourceKey: string): Promise<boolean> {
    const claim = this.host.informer<PersistentVolumeClaim>(PVCS).get(sourceKey);
    const filling = claim && this.fillingPhase(claim);
    const [namespace, name] = sourceKey.split('/') as [string, string];
    const user = claim ? podsUsingClaim(this.pods, namespace, name)[0] : undefined;
    if (claim?.status?.phase === 'Bound' && !filling && !user) return true;
    const waitingFor = !claim
      ? `source PVC ${sourceKey} not found`
      : filling
        ? `source PVC ${sourceKey} is not populated: its DataVolume is ${filling}`
        : user
          ? `pod ${namespace}/${user.metadata!.name} using PersistentVolumeClaim ${name}`
          : `source PVC ${sourceKey} is not Bound`;
    await this.step({
      phase: 'CloneScheduled',
      conditions: [
        boundCondition(this.name, false),
        ready(false, 'CloneScheduled'),
        running(
          'False',
          !claim ? 'CloneWithoutSource' : user ? 'CloneSourceInUse' : 'CloneScheduled',
          waitingFor,
        ),
      ],
    });
    return false;
  }

  /**
   * The phase of the DataVolume still filling a claim, as CDI's populated check sees it: a claim
   * controlled by a DataVolume is populated only once that DataVolume has Succeeded.
   */
  private fillingPhase(claim: PersistentVolumeClaim): string | undefined {
    const owner = claim.metadata?.ownerReferences?.find(
      (o) => o.controller && o.kind === DATA_VOLUMES.kind,
    );
    if (!owner) return undefined;
    const phase = this.host
      .informer<DataVolumeObject>(DATA_VOLUMES)
      .get(`${claim.metadata!.namespace}/${owner.name}`)?.status?.phase;
    return phase === 'Succeeded' ? undefined : (phase ?? 'Pending');
  }

  /** The importer's or cloner's work, from InProgress to Succeeded or Failed. */
  private async transfer(
    {
      clone,
      url,
      blank,
      target,
    }: { clone?: string; url?: string; blank?: boolean; target: PersistentVolumeClaim },
    folder: string,
  ): Promise<void> {
    if (clone) {
      const refused = this.cloneRefused(clone, target);
      if (refused) return this.failed('CloneScheduled', refused);
    }
    const stalled = !!this.options.stalls?.(this.dv);
    if (stalled && this.dv.status?.phase?.endsWith('InProgress')) return;
    // Written even when the cache already says InProgress: against the cached version, it fails
    // with a conflict when this pass works from a stale cache (the transfer has already ended), so
    // a finished volume is never copied or imported again under a guest that boots from it.
    await this.step(
      {
        phase: clone ? 'CloneInProgress' : 'ImportInProgress',
        progress: '0.00%',
        conditions: [
          boundCondition(this.name, true),
          ready(false, 'TransferRunning'),
          running('True', 'Pod is running'),
        ],
      },
      { evenIfUnchanged: true },
    );
    if (stalled) return;
    if (this.options.fails?.(this.dv))
      return clone
        ? this.failed(
            'CloneScheduled',
            'Unable to clone: the clone source pod failed (injected failure)',
          )
        : this.importerFailed(
            `Unable to process data: Unable to transfer source data to target file: injected failure for ${url}`,
          );
    const error = await this.fill({ clone, url, blank }, folder);
    if (error) return clone ? this.failed('CloneScheduled', error) : this.importerFailed(error);
    await this.step({
      phase: 'Succeeded',
      progress: '100.0%',
      conditions: [
        boundCondition(this.name, true),
        ready(true, 'Completed'),
        running('False', 'Completed'),
      ],
    });
  }

  /** The volume's content written into the claim's folder; an error's text if it cannot be. */
  private fill(
    { clone, url, blank }: { clone?: string; url?: string; blank?: boolean },
    folder: string,
  ): Promise<string | undefined> {
    if (clone) return copyClaim(clone, folder, this.options.volumePath);
    return blank ? writeBlankDisk(folder) : importDisk(url!, folder, this.options.importedDiskKeys);
  }

  /** The DataVolume's claim, as CDI creates it (name of the DataVolume, owned by it). */
  private async ensureClaim(): Promise<PersistentVolumeClaim> {
    const existing = this.host
      .informer<PersistentVolumeClaim>(PVCS)
      .get(`${this.namespace}/${this.name}`);
    if (existing) return existing;
    const storage = this.dv.spec?.storage ?? {};
    try {
      return await this.host.client.create<PersistentVolumeClaim>(PVCS, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: this.name,
          namespace: this.namespace,
          labels: { app: 'containerized-data-importer', ...this.dv.metadata?.labels },
          ownerReferences: [
            {
              apiVersion: DATA_VOLUMES.apiVersion,
              kind: DATA_VOLUMES.kind,
              name: this.name,
              uid: this.dv.metadata!.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: {
          // The storage profile's defaults for a class without one of its own.
          accessModes: storage.accessModes ?? ['ReadWriteOnce'],
          resources: {
            requests: {
              storage: String(
                claimRequestBytes(
                  storage.resources?.requests?.storage ?? '1Gi',
                  storage.volumeMode,
                ),
              ),
            },
          },
          ...(storage.volumeMode ? { volumeMode: storage.volumeMode } : {}),
          ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
        },
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      return this.host.client.get<PersistentVolumeClaim>(PVCS, this.name, this.namespace);
    }
  }

  /** The clone populator's size check between the source claim and this DataVolume's claim. */
  private cloneRefused(sourceKey: string, target: PersistentVolumeClaim): string | undefined {
    const source = this.host.informer<PersistentVolumeClaim>(PVCS).get(sourceKey);
    return source ? cloneSizeProblem(source, target) : undefined;
  }

  /**
   * A transfer that cannot go on, as CDI's clone populator reports an error: the phase stays,
   * Running=False with reason Error and the error as its message.
   */
  private async failed(phase: string, message: string): Promise<void> {
    await this.step({
      phase,
      conditions: [
        this.boundNow(),
        ready(false, phase === 'Pending' ? 'Pending' : 'TransferRunning'),
        running('False', 'Error', message),
      ],
    });
  }

  /**
   * The importer pod's container exited with an error: with restartPolicy OnFailure the pod keeps
   * running and the container restarts, so the phase stays ImportInProgress; CDI copies the
   * container's termination message into the Running condition (False, reason Error) and counts
   * the restarts (setAnnotationsFromPodWithPrefix).
   */
  private async importerFailed(message: string): Promise<void> {
    await this.step({
      phase: 'ImportInProgress',
      restartCount: (this.dv.status?.restartCount ?? 0) + 1,
      conditions: [
        this.boundNow(),
        ready(false, 'TransferRunning'),
        running('False', 'Error', message),
      ],
    });
  }

  /**
   * A transfer that stopped with an error stays so here: each restart of the importer, or retry of
   * the clone populator, would fail the same way.
   */
  private stoppedByError(): boolean {
    const running = this.dv.status?.conditions?.find((c) => c.type === 'Running');
    return running?.status === 'False' && running.reason === 'Error';
  }

  private boundNow(): Omit<Condition, 'lastTransitionTime'> {
    const claim = this.host
      .informer<PersistentVolumeClaim>(PVCS)
      .get(`${this.namespace}/${this.name}`);
    return boundCondition(this.name, claim?.status?.phase === 'Bound');
  }

  private async step(step: Step, options: { evenIfUnchanged?: boolean } = {}): Promise<void> {
    const status = {
      ...this.dv.status,
      phase: step.phase,
      progress: step.progress ?? this.dv.status?.progress ?? 'N/A',
      ...(step.restartCount ? { restartCount: step.restartCount } : {}),
      claimName: this.name,
      conditions: withTransitions(this.dv.status?.conditions, step.conditions),
    };
    const written = options.evenIfUnchanged
      ? await this.host.client.updateStatus(DATA_VOLUMES, { ...this.dv, status })
      : await writeStatus(this.host.client, DATA_VOLUMES, this.dv, status);
    if (written) this.dv = written;
  }
}
