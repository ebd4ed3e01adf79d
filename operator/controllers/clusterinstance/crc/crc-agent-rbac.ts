import {
  CLUSTER_ROLES,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../../api/core-resources.js';
import { SECRETS } from '../../../api/resources.js';
import { isAlreadyExists, isNotFound } from '../../../kube/api-error.js';
import { sameContent } from '../../../kube/objects.js';
import type { Manager } from '../../../runtime/manager.js';
import { OwnershipConflictError } from '../ownership-conflict.js';
import type { RbacObject } from './crc-builders.js';
import {
  AGENT_CLUSTER_ROLE_RULES,
  buildAgentBinding,
  buildAgentClusterRole,
  buildAgentServiceAccount,
  buildHandoffBinding,
  buildHandoffRole,
  buildHandoffSecret,
} from './crc-builders.js';
import type { CrcObjects } from './crc-objects.js';
import { controlledBy } from './crc-ownership.js';

/*
 * The agent's identity (spec §3.9, ADR 0010): its own ServiceAccount, the shared ClusterRole for
 * reading VMIs bound in the instance namespace, and a Role that reaches exactly one Secret, the
 * handoff of the current VMI, which the operator makes (empty) before the agent runs.
 */

/** The shared ClusterRole: created when absent, refused when someone changed its rules. */
export async function ensureAgentClusterRole(manager: Manager): Promise<void> {
  const name = manager.config.crcAgentClusterRole;
  let role: RbacObject;
  try {
    role = await manager.client.get<RbacObject>(CLUSTER_ROLES, name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await manager.client.create(CLUSTER_ROLES, buildAgentClusterRole(name));
      return;
    } catch (createError) {
      if (!isAlreadyExists(createError)) throw createError;
      role = await manager.client.get<RbacObject>(CLUSTER_ROLES, name);
    }
  }
  if (!sameContent(role.rules ?? [], AGENT_CLUSTER_ROLE_RULES))
    throw new Error(`CRC agent ClusterRole ${name} has unexpected rules`);
}

function mustBeControlled(objects: CrcObjects, object: RbacObject, what: string): void {
  if (!controlledBy(object, objects.instance))
    throw new OwnershipConflictError(
      `${what} ${objects.namespace}/${object.metadata?.name} is not controlled by ClusterInstance ${objects.instance.metadata!.name}`,
    );
}

/** A RoleBinding or Role of the instance, kept to the desired roleRef, subjects and rules. */
async function ensureRbac(
  manager: Manager,
  objects: CrcObjects,
  type: typeof ROLES,
  desired: RbacObject,
): Promise<void> {
  const existing = await objects.live<RbacObject>(type, desired.metadata!.name!);
  if (!existing) {
    try {
      await manager.client.create(type, desired);
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      return ensureRbac(manager, objects, type, desired);
    }
  }
  mustBeControlled(objects, existing, type.kind);
  if (desired.roleRef && !sameContent(existing.roleRef, desired.roleRef))
    throw new OwnershipConflictError(
      `${type.kind} ${objects.namespace}/${desired.metadata!.name} refers to another role`,
    );
  const drifted = desired.roleRef
    ? !sameContent(existing.subjects, desired.subjects)
    : !sameContent(existing.rules, desired.rules);
  if (drifted)
    await manager.client.update(type, {
      ...existing,
      ...(desired.roleRef ? { subjects: desired.subjects } : { rules: desired.rules }),
    });
}

/**
 * Everything the agent of VMI `vmiUid` needs to be allowed to do its work, and no more; called
 * again when the VMI changes, which moves the Role to the new VMI's handoff Secret.
 */
export async function ensureAgentRbac(
  manager: Manager,
  objects: CrcObjects,
  vmiUid: string | undefined,
): Promise<void> {
  const instance = objects.instance;
  await ensureAgentClusterRole(manager);
  const account = buildAgentServiceAccount(instance);
  const existingAccount = await objects.live<RbacObject>(SERVICE_ACCOUNTS, account.metadata!.name!);
  if (existingAccount) mustBeControlled(objects, existingAccount, 'ServiceAccount');
  else await objects.ensure(SERVICE_ACCOUNTS, account);
  await ensureRbac(
    manager,
    objects,
    ROLE_BINDINGS,
    buildAgentBinding(instance, manager.config.crcAgentClusterRole),
  );
  if (!vmiUid) return;
  const handoff = buildHandoffSecret(instance, vmiUid);
  const existingHandoff = await objects.current<RbacObject>(SECRETS, handoff.metadata!.name!);
  if (existingHandoff) mustBeControlled(objects, existingHandoff, 'handoff Secret');
  else await objects.ensure(SECRETS, handoff);
  await ensureRbac(manager, objects, ROLES, buildHandoffRole(instance, vmiUid));
  await ensureRbac(manager, objects, ROLE_BINDINGS, buildHandoffBinding(instance));
}
