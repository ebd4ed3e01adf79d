import { CONFIG_MAPS } from '../../../client/api/core-resources.js';
import { POOLS } from '../../../client/api/resources.js';
import { LABEL_MANAGED_BY, LABEL_POOL, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import { controllerReference, isControlledBy } from '../../kube/ownership.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { ConfigMap } from '../../kube/workloads.js';
import type { Lease } from '../binding/binding-model.js';
import type { DemandHistory } from './autoscaling/demand-history.js';
import { advanceHistory, recordArrival } from './autoscaling/demand-history.js';
import { decodeHistory, encodeHistory } from './autoscaling/history-codec.js';
import type { Pool } from './pool-conditions.js';

/** The ConfigMap keys: the history (the policy's codec) and which leases it has counted. */
export const HISTORY_KEY = 'history';
export const COUNTED_KEY = 'counted';
/** More leases than this created in one second are not told apart (the mark keeps their UIDs). */
const MAX_MARKED_UIDS = 500;

/** The ConfigMap of a pool's demand history (a pool name is at most 48 characters). */
export function historyConfigMapName(pool: string): string {
  return `${pool}-demand-history`;
}

/**
 * The leases counted so far, as the apiserver dated them: every lease created before `through`
 * (epoch ms, whole seconds), and those of that very second named by UID. A restart counts none
 * of them again; the dates are the apiserver's, so no clock of the operator is compared with them.
 */
export interface CountedMark {
  through: number;
  uids: string[];
}

/** What a pool's history stands at, between passes. */
export interface HistoryEntry {
  poolUid: string;
  history: DemandHistory;
  counted: CountedMark;
  /** Why the stored history was not used, when it was not (refused text, a name held by another). */
  problem?: { reason: 'HistoryRefused' | 'HistoryNameTaken'; message: string };
  /** The ConfigMap as last read or written; absent until the first write creates it. */
  stored?: ConfigMap;
  /** The slot the stored text was in, and whether arrivals came since: a write is due. */
  storedSlot: number;
  dirty: boolean;
}

function created(lease: Lease): number {
  return Date.parse(lease.metadata.creationTimestamp ?? '') || 0;
}

/** The mark of a fresh history: the leases already there are not new arrivals. */
function markOf(leases: readonly Lease[]): CountedMark {
  const through = Math.max(0, ...leases.map(created));
  return { through, uids: leases.filter((l) => created(l) === through).map((l) => l.metadata.uid) };
}

/** The stored mark, or undefined for one the pool did not write (a tenant may write it). */
function parseMark(text: string | undefined, now: number): CountedMark | undefined {
  try {
    const { through, uids } = JSON.parse(text ?? '') as Partial<CountedMark>;
    const valid =
      Number.isSafeInteger(through) &&
      through! >= 0 &&
      through! <= now + 60_000 &&
      Array.isArray(uids) &&
      uids.length <= MAX_MARKED_UIDS &&
      uids.every((u) => typeof u === 'string' && u.length <= 64);
    return valid ? { through: through!, uids } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A pool's demand history, kept in a ConfigMap the pool controls
 * (docs/reference/kinds.md#adaptive-warm-spares): read live once per pool and operator, then
 * held in memory and written back when a slot ends or leases arrived. Tenants may write
 * ConfigMaps in their namespace, so what is read is only numbers in range (the codec's check);
 * anything else starts afresh and says why. A ConfigMap of that name the pool does not control
 * is left alone.
 */
export class DemandHistoryStore {
  private readonly entries = new Map<string, HistoryEntry>();

  constructor(private readonly ports: ControllerPorts) {}

  /** The pool's history brought up to `now`, with the leases that arrived since counted. */
  async observe(
    key: string,
    pool: Pool,
    leases: readonly Lease[],
    now: number,
  ): Promise<HistoryEntry> {
    const ofPool = leases.filter((l) => l.spec.poolRef.name === pool.metadata.name);
    let entry = this.entries.get(key);
    if (!entry || entry.poolUid !== pool.metadata.uid) {
      entry = await this.load(pool, ofPool, now);
      this.entries.set(key, entry);
    }
    const { through, uids } = entry.counted;
    const arrived = ofPool.filter(
      (l) => created(l) > through || (created(l) === through && !uids.includes(l.metadata.uid)),
    );
    let history = advanceHistory(entry.history, now);
    for (let i = 0; i < arrived.length; i++) history = recordArrival(history, now);
    entry.history = history;
    if (arrived.length > 0) {
      const newest = Math.max(through, ...arrived.map(created));
      const atNewest = ofPool.filter((l) => created(l) === newest).map((l) => l.metadata.uid);
      const kept = newest === through ? [...new Set([...uids, ...atNewest])] : atNewest;
      entry.counted = { through: newest, uids: kept.slice(-MAX_MARKED_UIDS) };
      entry.dirty = true;
    }
    return entry;
  }

  /**
   * Writes the history when a slot ended or leases arrived since the last write; with the
   * resourceVersion read, so a ConfigMap someone else changed meanwhile is read again (the
   * Conflict is thrown: the runtime retries the pass) rather than overwritten.
   */
  async save(key: string, pool: Pool, entry: HistoryEntry): Promise<void> {
    const slotEnded = entry.storedSlot !== entry.history.openSlotStart;
    // A name held by another object is tried again once a slot, by a create that fails if it is.
    if (entry.problem?.reason === 'HistoryNameTaken' && !slotEnded) return;
    if (!entry.dirty && !slotEnded && entry.stored) return;
    const data = {
      [HISTORY_KEY]: encodeHistory(entry.history),
      [COUNTED_KEY]: JSON.stringify(entry.counted),
    };
    const { client } = this.ports;
    try {
      entry.stored = entry.stored
        ? await client.update<ConfigMap>(CONFIG_MAPS, { ...entry.stored, data })
        : await this.create(pool, data);
    } catch (error) {
      this.entries.delete(key);
      throw error;
    }
    if (!entry.stored) {
      if (entry.problem?.reason === 'HistoryNameTaken') {
        entry.storedSlot = entry.history.openSlotStart;
        return;
      }
      // Created meanwhile by another writer: the next pass reads it.
      this.entries.delete(key);
      return;
    }
    if (entry.problem?.reason === 'HistoryNameTaken') delete entry.problem;
    entry.storedSlot = entry.history.openSlotStart;
    entry.dirty = false;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private async create(pool: Pool, data: Record<string, string>): Promise<ConfigMap | undefined> {
    const { name, namespace } = pool.metadata;
    return this.ports.client.createIfAbsent<ConfigMap>(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: historyConfigMapName(name),
        namespace,
        labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR, [LABEL_POOL]: name },
        // Goes with the pool; never holds up its deletion.
        ownerReferences: [{ ...controllerReference(POOLS, pool), blockOwnerDeletion: false }],
      },
      data,
    });
  }

  /** The stored history (a live read: ConfigMaps are not cached), or a fresh one and why. */
  private async load(pool: Pool, leases: readonly Lease[], now: number): Promise<HistoryEntry> {
    const { name, namespace } = pool.metadata;
    const stored = await this.ports.client.getOrUndefined<ConfigMap>(
      CONFIG_MAPS,
      historyConfigMapName(name),
      namespace,
    );
    const fresh = (problem?: HistoryEntry['problem']): HistoryEntry => {
      const { history } = decodeHistory(undefined, now);
      return {
        poolUid: pool.metadata.uid,
        history,
        counted: markOf(leases),
        ...(problem ? { problem } : {}),
        ...(stored && problem?.reason !== 'HistoryNameTaken' ? { stored } : {}),
        storedSlot: history.openSlotStart,
        dirty: true,
      };
    };
    if (!stored) return fresh();
    const cm = `ConfigMap ${historyConfigMapName(name)}`;
    if (!isControlledBy(stored, pool))
      return fresh({
        reason: 'HistoryNameTaken',
        message: `${cm} is not this pool's: the history is kept in memory only, and stored once that name is free`,
      });
    const decoded = decodeHistory(stored.data?.[HISTORY_KEY], now);
    const counted = parseMark(stored.data?.[COUNTED_KEY], now);
    const problem = decoded.problem ?? (counted ? undefined : 'the stored lease mark is malformed');
    if (problem)
      return fresh({
        reason: 'HistoryRefused',
        message: `${cm} was not used (${problem}); the pool learns its demand afresh from ${new Date(now).toISOString()}`,
      });
    return {
      poolUid: pool.metadata.uid,
      history: decoded.history,
      counted: counted!,
      stored,
      storedSlot: decoded.history.openSlotStart,
      dirty: false,
    };
  }
}
