import { CONFIG_MAPS } from '../../../../client/api/core-resources.js';
import { INSTANCES, POOLS } from '../../../../client/api/resources.js';
import { collectDiagnostics } from '../../../../client/diagnostics/collect-diagnostics.js';
import { LABEL_DIAGNOSTICS } from '../../../../client/diagnostics/diagnosed-kinds.js';
import { DIAGNOSTICS_BOUNDS } from '../../../../client/diagnostics/diagnostics-bounds.js';
import type { DiagnosticsReader } from '../../../../client/diagnostics/diagnostics-reader.js';
import { fitDiagnostics } from '../../../../client/diagnostics/fit-diagnostics.js';
import type { OwnerReference } from '../../../../client/kube/objects.js';
import {
  LABEL_CLUSTER_INSTANCE,
  LABEL_MANAGED_BY,
  LABEL_POOL,
  MANAGED_BY_OPERATOR,
} from '../../../../contracts/labels.js';
import type { KubeObject } from '../../../kube/objects.js';
import { ownerReference } from '../../../kube/ownership.js';
import type { Logger } from '../../../runtime/logger.js';
import type { Instance, InstanceApi } from './instance-api.js';
import type { InstanceStatusDraft } from './status-draft.js';

/*
 * The diagnostics bundle of a failed instance (docs/diagnostics.md#stored-bundles): a ConfigMap
 * the failure message names, written after the status write that marks the instance Failed and
 * never in its way, owned by the instance's pool (so it outlives the instance the pool replaces),
 * at most KEEP_PER_POOL per pool.
 */

/** The newest bundles a pool keeps; older ones are deleted. */
export const KEEP_PER_POOL = 5;
/** Collections running at once per operator; a failure beyond them is not collected. */
const MAX_IN_FLIGHT = 4;
/** A collection that takes longer is given up (an Event says so). */
const STORE_TIMEOUT_MS = 30_000;
const SUFFIX = '-diagnostics-';

export const DiagnosticsReason = {
  Stored: 'DiagnosticsStored',
  NotStored: 'DiagnosticsNotStored',
} as const;

/** `<instance>-diagnostics-<first 8 of its UID>`: one per incarnation of a name. */
export function diagnosticsConfigMapName(instance: Instance): string {
  const uid = instance.metadata.uid.slice(0, 8);
  return `${instance.metadata.name.slice(0, 253 - SUFFIX.length - uid.length)}${SUFFIX}${uid}`;
}

const where = (instance: Instance): string =>
  `diagnostics in ConfigMap ${instance.metadata.namespace}/${diagnosticsConfigMapName(instance)}`;

/** A Failed draft's Ready message names the bundle, also when a later pass rewrites it. */
export function nameFailureDiagnostics(draft: InstanceStatusDraft): void {
  if (draft.status.phase !== 'Failed') return;
  const ready = draft.status.conditions?.find((c) => c.type === 'Ready');
  const note = where(draft.instance);
  if (ready && !ready.message.endsWith(note)) ready.message = `${ready.message}; ${note}`;
}

const inFlight = new WeakMap<InstanceApi, Set<string>>();

/**
 * Starts storing the bundle of an instance the write has just made Failed; returns at once. A
 * failure to store is logged and a Warning Event, never the pass's error.
 */
export function storeFailureDiagnostics(
  api: InstanceApi,
  before: Instance,
  written: Instance,
  logger?: Logger,
): void {
  if (written.status?.phase !== 'Failed' || before.status?.phase === 'Failed') return;
  const running = inFlight.get(api) ?? new Set<string>();
  inFlight.set(api, running);
  const notStored = (why: string): void => {
    logger?.warn({ configMap: diagnosticsConfigMapName(written) }, `Stored no diagnostics: ${why}`);
    api.event(written, 'Warning', DiagnosticsReason.NotStored, `Diagnostics not stored: ${why}`);
  };
  if (running.size >= MAX_IN_FLIGHT) {
    notStored(`${MAX_IN_FLIGHT} other collections are running`);
    return;
  }
  const uid = written.metadata.uid;
  running.add(uid);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`not done within ${STORE_TIMEOUT_MS / 1000}s`)),
      STORE_TIMEOUT_MS,
    );
    timer.unref();
  });
  void Promise.race([store(api, written), timeout])
    .then(() =>
      logger?.info(
        { configMap: diagnosticsConfigMapName(written) },
        'Stored diagnostics ConfigMap',
      ),
    )
    .catch((error: unknown) => notStored(error instanceof Error ? error.message : String(error)))
    .finally(() => {
      clearTimeout(timer);
      running.delete(uid);
    });
}

/** The instance engine's live reads; no pod logs (the operator is not granted pods/log). */
function instanceReader(api: InstanceApi): DiagnosticsReader {
  return {
    get: (type, name, namespace) => api.get(type as typeof INSTANCES, name, namespace),
    list: (type, options) => api.list(type as typeof INSTANCES, options),
  };
}

/** The instance's pool as an owner, else the instance itself; never blocking their deletion. */
function bundleOwner(instance: Instance): { owner: OwnerReference; pool?: string } {
  const pool = instance.metadata.ownerReferences?.find(
    (ref) => ref.controller && ref.apiVersion === POOLS.apiVersion && ref.kind === POOLS.kind,
  );
  if (pool)
    return { owner: { ...pool, controller: false, blockOwnerDeletion: false }, pool: pool.name };
  return { owner: { ...ownerReference(INSTANCES, instance), blockOwnerDeletion: false } };
}

async function store(api: InstanceApi, instance: Instance): Promise<void> {
  const { name, namespace } = instance.metadata;
  const diagnostics = await collectDiagnostics(
    { kind: 'instance', name, namespace },
    instanceReader(api),
    { now: api.now() },
  );
  const files = fitDiagnostics(diagnostics, DIAGNOSTICS_BOUNDS.storedBytes);
  const { owner, pool } = bundleOwner(instance);
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: diagnosticsConfigMapName(instance),
      namespace,
      labels: {
        [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR,
        [LABEL_DIAGNOSTICS]: 'true',
        [LABEL_CLUSTER_INSTANCE]: name,
        ...(pool ? { [LABEL_POOL]: pool } : {}),
      },
      ownerReferences: [owner],
    },
    data: { 'diagnostics.md': files.markdown, 'diagnostics.json': files.json },
  };
  // The first failure of an incarnation is kept; its message names the same ConfigMap.
  await api.createIfMissing(CONFIG_MAPS, configMap);
  if (pool) await prune(api, namespace, owner);
}

/** Keeps the pool's newest KEEP_PER_POOL bundles; deletes the others by UID. */
async function prune(api: InstanceApi, namespace: string, pool: OwnerReference): Promise<void> {
  const bundles = await api.list<KubeObject>(CONFIG_MAPS, {
    namespace,
    labelSelector: `${LABEL_DIAGNOSTICS}=true,${LABEL_POOL}=${pool.name}`,
    metadataOnly: true,
  });
  const owned = bundles
    .filter((b) => b.metadata.ownerReferences?.some((ref) => ref.uid === pool.uid))
    .sort(
      (a, b) =>
        (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
        b.metadata.name.localeCompare(a.metadata.name),
    );
  for (const old of owned.slice(KEEP_PER_POOL)) await api.delete(CONFIG_MAPS, old);
}
