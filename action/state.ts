/** What main leaves for post (`core.saveState`), under one set of keys. */
export interface SavedLease {
  leaseName: string;
  namespace: string;
  /** Post deletes only this exact lease, never a later one that took the same name. */
  leaseUid: string;
  release: boolean;
  kubeconfigPath: string;
}

const KEYS = {
  leaseName: 'lease-name',
  namespace: 'namespace',
  leaseUid: 'lease-uid',
  release: 'release',
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
  store.saveState(KEYS.kubeconfigPath, lease.kubeconfigPath);
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
    kubeconfigPath: store.getState(KEYS.kubeconfigPath),
  };
}
