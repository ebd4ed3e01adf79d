/**
 * What main leaves for post (`core.saveState`), under one set of keys. Main saves it before it
 * sends the create (the lease's name is known then), and again with the UID once it has one.
 */
export interface SavedLease {
  leaseName: string;
  namespace: string;
  /**
   * Post deletes only this exact lease, never a later one that took the same name. Empty when
   * the create's response never came back: post then releases the lease of that name only if
   * this run, attempt and job created it.
   */
  leaseUid: string;
  release: boolean;
  /** Input hold-on-failure, validated by main (0: none). */
  holdOnFailureMs: number;
  kubeconfigPath: string;
}

const KEYS = {
  leaseName: 'lease-name',
  namespace: 'namespace',
  leaseUid: 'lease-uid',
  release: 'release',
  holdOnFailureMs: 'hold-on-failure-ms',
  kubeconfigPath: 'kubeconfig-path',
} as const;

export interface StateStore {
  saveState(name: string, value: string): void;
  getState(name: string): string;
}

export function saveLease(store: StateStore, lease: SavedLease): void {
  store.saveState(KEYS.leaseName, lease.leaseName);
  store.saveState(KEYS.namespace, lease.namespace);
  store.saveState(KEYS.leaseUid, lease.leaseUid);
  store.saveState(KEYS.release, String(lease.release));
  store.saveState(KEYS.holdOnFailureMs, String(lease.holdOnFailureMs));
  store.saveState(KEYS.kubeconfigPath, lease.kubeconfigPath);
}

/** Main created no lease after all (the name was another job's): post has nothing to release. */
export function forgetLease(store: StateStore): void {
  store.saveState(KEYS.leaseName, '');
}

/** The lease main created, or undefined when main created none (post has nothing to do). */
export function loadLease(store: StateStore): SavedLease | undefined {
  const leaseName = store.getState(KEYS.leaseName);
  const namespace = store.getState(KEYS.namespace);
  if (!leaseName || !namespace) return undefined;
  return {
    leaseName,
    namespace,
    leaseUid: store.getState(KEYS.leaseUid),
    release: store.getState(KEYS.release) !== 'false',
    holdOnFailureMs: Number(store.getState(KEYS.holdOnFailureMs)) || 0,
    kubeconfigPath: store.getState(KEYS.kubeconfigPath),
  };
}
