import type { KubeObject, Stored } from '../kube/objects.js';
import type { NamespacedType } from '../../client/kube/resource-type.js';
import type { StepFailure } from './step-errors.js';
import type { Verdict } from './verdict.js';
import { failed, holds, recorded } from './verdict.js';

/*
 * The objects an owner made, recorded in its status by role (what the object is to it), name and
 * UID (docs/adr/0041-one-step-engine.md). A later pass trusts an object only as the one recorded:
 * one that is gone, or of another UID, is not the owner's work any more.
 */

/** One recorded object. */
export interface ObjectRecord<Role extends string = string> {
  role: Role;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/**
 * Where an owner keeps its records, in the status draft of the pass: a role-keyed list
 * (`roleList`), or fields of its own status schema. `read` answers only a record with a UID.
 */
export interface RecordStore<Role extends string> {
  read(role: Role): ObjectRecord<Role> | undefined;
  write(record: ObjectRecord<Role>): void;
}

/** A store over a role-keyed list: `write` replaces the role's earlier entry. */
export function roleList<Role extends string>(list: {
  get: () => readonly ObjectRecord[] | undefined;
  set: (records: ObjectRecord[]) => void;
}): RecordStore<Role> {
  return {
    read: (role) => {
      const found = list.get()?.find((r) => r.role === role);
      return found?.uid ? (found as ObjectRecord<Role>) : undefined;
    },
    write: (record) =>
      list.set([...(list.get() ?? []).filter((r) => r.role !== record.role), record]),
  };
}

/** The records of one owner: read and written by role. */
export class ObjectRecords<Role extends string> {
  constructor(protected readonly store: RecordStore<Role>) {}

  recorded(role: Role): ObjectRecord<Role> | undefined {
    return this.store.read(role);
  }

  /** Records `object` (its name and UID) under `role`, replacing what the role had. */
  record(role: Role, type: NamespacedType, object: Stored<KubeObject>): void {
    const { name, namespace, uid } = object.metadata;
    this.store.write({ role, kind: type.kind, namespace, name, uid });
  }
}

/** How an owner reads, makes and judges the objects it records, and its words for a lost one. */
export interface RecordOwner {
  current<T extends KubeObject>(type: NamespacedType, name: string): Promise<Stored<T> | undefined>;
  create<T extends KubeObject>(type: NamespacedType, desired: T): Promise<Stored<T>>;
  /** Whether an object found under a role's name, with nothing recorded yet, is the owner's. */
  ours(object: Stored<KubeObject>): boolean;
  /** The failure for a recorded object that is gone or being deleted. */
  lost(record: ObjectRecord): StepFailure;
  /** The failure for another object of a recorded one's name (`uid` is the one found). */
  replaced(record: ObjectRecord, uid: string): StepFailure;
  /** The failure for an object of the name that is not the owner's, with nothing recorded. */
  notOurs(type: NamespacedType, found: Stored<KubeObject>): StepFailure;
}

/** Records, and the objects behind them: made, recorded before use, then verified by UID. */
export class RecordedObjects<Role extends string> extends ObjectRecords<Role> {
  constructor(
    store: RecordStore<Role>,
    private readonly owner: RecordOwner,
  ) {
    super(store);
  }

  /**
   * The failure for the object recorded under `role`, as `found` now (undefined: gone): lost,
   * or replaced by another of its name; undefined when it is the recorded one, or none is
   * recorded.
   */
  verify(role: Role, found: Stored<KubeObject> | undefined): StepFailure | undefined {
    const record = this.recorded(role);
    if (!record || isRecorded(record, found)) return undefined;
    return this.failureOf(record, found);
  }

  /**
   * The object of a role: created from `desired` when there is none (one found is recorded if it
   * is the owner's, else a failure), and recorded: the verdict is `record`, so the pass ends and
   * the UID is durable before anything uses the object. Once recorded, only verified: `holds`
   * with it, or the failure of a lost or replaced one.
   */
  async ensureRecorded<T extends KubeObject>(
    role: Role,
    type: NamespacedType,
    name: string,
    desired: () => T | Promise<T>,
  ): Promise<Verdict<Stored<T>, never>> {
    const found = await this.owner.current<T>(type, name);
    const record = this.recorded(role);
    if (record)
      return isRecorded(record, found) ? holds(found) : failed(this.failureOf(record, found));
    if (found && !this.owner.ours(found)) return failed(this.owner.notOurs(type, found));
    const object = found ?? (await this.owner.create<T>(type, await desired()));
    this.record(role, type, object);
    return recorded(object);
  }

  /** Why `found` is not the recorded object: gone (or being deleted), or another of its name. */
  private failureOf(record: ObjectRecord, found: Stored<KubeObject> | undefined): StepFailure {
    return found && !found.metadata.deletionTimestamp
      ? this.owner.replaced(record, found.metadata.uid)
      : this.owner.lost(record);
  }
}

/** Whether `found` is the recorded object itself, and not being deleted. */
function isRecorded<T extends KubeObject>(
  record: ObjectRecord,
  found: Stored<T> | undefined,
): found is Stored<T> {
  return !!found && !found.metadata.deletionTimestamp && found.metadata.uid === record.uid;
}
