import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../../client/kube/resource-type.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';

/** What an ownership rule says about an object found where the instance's would be. */
export type OwnershipVerdict =
  | { owned: true }
  /** Owned through a parent that must be read live and judged in turn. */
  | { parent: { type: ResourceType; name: string; uid: string } }
  | { conflict: string };

/**
 * A topology's ownership rule, which the engine applies to everything it reads, ensures or
 * removes for an instance: an object of another owner is never adopted, changed or deleted.
 */
export interface OwnershipRule {
  /** The verdict on an object of kind `kind`. */
  verdict(object: KubeObject, kind: string): OwnershipVerdict;
  /** The message for a dependent whose parent is gone or is another object of its name. */
  orphaned(object: KubeObject, kind: string, ownerUid: string): string;
  /** Whether ensure gives an accepted object it does not control the desired owner references. */
  adopts: boolean;
}

/** Parents of parents are followed this deep at most. */
const MAX_PARENT_DEPTH = 3;

/**
 * Throws an OwnershipConflictError unless the rule accepts the object (of `kind` when it does
 * not say), reading the parents it names with `read` (live) as far as the rule requires.
 */
export async function verifyOwnership(
  rule: OwnershipRule,
  object: KubeObject,
  kind: string,
  read: (type: ResourceType, name: string) => Promise<KubeObject | undefined>,
  depth = 0,
): Promise<void> {
  const actualKind = object.kind ?? kind;
  const verdict = rule.verdict(object, actualKind);
  if ('owned' in verdict) return;
  if ('conflict' in verdict) throw new OwnershipConflictError(verdict.conflict);
  const { parent: owner } = verdict;
  const parent = depth < MAX_PARENT_DEPTH ? await read(owner.type, owner.name) : undefined;
  if (!parent || parent.metadata?.uid !== owner.uid)
    throw new OwnershipConflictError(rule.orphaned(object, actualKind, owner.uid));
  await verifyOwnership(rule, parent, owner.type.kind, read, depth + 1);
}
