import { EventEmitter } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { PVCS } from '../../../client/api/core-resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import { objectKey } from '../../../operator/kube/objects.js';
import type { Informer } from '../../../operator/runtime/informer.js';
import type { PersistentVolumeClaim } from '../../../operator/kube/workloads.js';
import { startPlatformInformer } from '../host/platform-informer.js';

const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

export interface SimulatedStorageOptions {
  kubeConfig: ClusterAccess;
  /** The namespace whose claims this storage serves. */
  namespace: string;
  /** Claims of these storage classes stay Pending, as with a class that has no provisioner. */
  unprovisionedClasses?: string[];
}

/**
 * Plays a dynamic provisioner and the PVC-protection controller: every claim becomes Bound with
 * its requested capacity and gets a local folder of its own (the "volume", which Job pods see at
 * their mount paths and a simulated CDI clone copies), and a deleted claim's protection finalizer
 * is removed so that it goes (no pod here keeps using a volume after the claim is deleted).
 */
export class SimulatedStorage {
  private readonly bound = new EventEmitter();
  private informer!: Informer<PersistentVolumeClaim>;
  private client!: ApiClient;

  private constructor(
    private readonly options: SimulatedStorageOptions,
    private readonly root: string,
  ) {}

  static async start(options: SimulatedStorageOptions): Promise<SimulatedStorage> {
    const storage = new SimulatedStorage(
      options,
      await mkdtemp(path.join(os.tmpdir(), 'simulated-storage-')),
    );
    const { informer, client } = await startPlatformInformer<PersistentVolumeClaim>(
      options.kubeConfig,
      PVCS,
      options.namespace,
      {
        onAdd: (claim) => storage.handle(claim),
        onUpdate: (_previous, claim) => storage.handle(claim),
        onDelete: (claim) => void rm(storage.folderOf(claim), { recursive: true, force: true }),
      },
      (created) => ((storage.client = created.client), (storage.informer = created.informer)),
    );
    storage.informer = informer;
    storage.client = client;
    return storage;
  }

  /** The local folder of a claim's volume, once it is Bound; undefined before. */
  volumePath(namespace: string, name: string): string | undefined {
    const claim = this.informer.get(`${namespace}/${name}`);
    return claim?.status?.phase === 'Bound' ? this.folderOf(claim) : undefined;
  }

  /** Resolves with the claim's folder once it is Bound (as a kubelet waits to mount it). */
  whenBound(namespace: string, name: string, signal: AbortSignal): Promise<string> {
    const ready = this.volumePath(namespace, name);
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const key = `${namespace}/${name}`;
      const onBound = (folder: string): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(folder);
      };
      const onAbort = (): void => {
        this.bound.off(key, onBound);
        reject(new Error(`stopped waiting for PersistentVolumeClaim ${key}`));
      };
      this.bound.once(key, onBound);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Stops serving. Nothing protects the claims any more: their protection finalizers are removed,
   * so that deleting them (or their namespace) afterwards does not wait for a storage that is gone.
   */
  async stop(): Promise<void> {
    await Promise.all(
      this.informer.list().map((claim) => this.unprotect(claim).catch(() => undefined)),
    );
    await this.informer.stop();
    await this.client.close();
    await rm(this.root, { recursive: true, force: true });
  }

  private folderOf(claim: PersistentVolumeClaim): string {
    return path.join(
      this.root,
      claim.metadata!.namespace!,
      `${claim.metadata!.name}-${claim.metadata!.uid}`,
    );
  }

  private handle(claim: PersistentVolumeClaim): void {
    this.reconcile(claim).catch((error: unknown) => {
      // A conflict or a vanished claim is followed by another event; anything else is worth a line.
      if (!isNotFound(error) && !isConflict(error))
        process.stderr.write(`[simulated storage] ${objectKey(claim)}: ${String(error)}\n`);
    });
  }

  private async reconcile(claim: PersistentVolumeClaim): Promise<void> {
    if (claim.metadata?.deletionTimestamp) return this.unprotect(claim);
    const storageClass = claim.spec.storageClassName ?? '';
    if (this.options.unprovisionedClasses?.includes(storageClass)) return;
    const folder = this.folderOf(claim);
    if (claim.status?.phase === 'Bound') {
      this.bound.emit(objectKey(claim), folder);
      return;
    }
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await this.client.patch(
      PVCS,
      { name: claim.metadata!.name!, namespace: claim.metadata!.namespace, subresource: 'status' },
      {
        status: {
          phase: 'Bound',
          accessModes: claim.spec.accessModes,
          capacity: { storage: claim.spec.resources?.requests?.storage ?? '1Gi' },
        },
      },
    );
  }

  private async unprotect(claim: PersistentVolumeClaim): Promise<void> {
    const finalizers = claim.metadata?.finalizers ?? [];
    const index = finalizers.indexOf(PVC_PROTECTION);
    if (index < 0) return;
    // A JSON patch tested against the finalizer's position never drops another one.
    await this.client.patch(
      PVCS,
      { name: claim.metadata!.name!, namespace: claim.metadata!.namespace },
      [
        { op: 'test', path: `/metadata/finalizers/${index}`, value: PVC_PROTECTION },
        { op: 'remove', path: `/metadata/finalizers/${index}` },
      ],
      { patchType: 'json' },
    );
  }
}
