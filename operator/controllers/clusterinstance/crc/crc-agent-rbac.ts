import {
  CLUSTER_ROLES,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../../../client/api/core-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Desired } from '../../../kube/objects.js';
import { sameContent } from '../../../kube/objects.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import type { RbacObject } from './crc-agent-builders.js';
import {
  AGENT_CLUSTER_ROLE_RULES,
  buildAgentBinding,
  buildAgentClusterRole,
  buildAgentServiceAccount,
  buildHandoffBinding,
  buildHandoffRole,
  buildHandoffSecret,
} from './crc-agent-builders.js';

/*
 * The agent's identity (docs/reference/generated-objects.md#crc-agent-rbac, ADR 0010): its own
 * ServiceAccount, the shared ClusterRole for reading VMIs bound in the instance namespace, and a
 * Role that reaches exactly one Secret, the handoff of the current VMI, which the operator makes
 * (empty) before the agent runs.
 */

/** The shared ClusterRole: created when absent, refused when someone changed its rules. */
async function ensureAgentClusterRole(api: InstanceApi): Promise<void> {
  const name = api.settings.crcAgentClusterRole;
  const role =
    (await api.get<RbacObject>(CLUSTER_ROLES, name)) ??
    ((await api.createIfMissing(CLUSTER_ROLES, buildAgentClusterRole(name)))
      ? undefined
      : await api.get<RbacObject>(CLUSTER_ROLES, name));
  if (role && !sameContent(role.rules ?? [], AGENT_CLUSTER_ROLE_RULES))
    throw new Error(`CRC agent ClusterRole ${name} has unexpected rules`);
}

function mustBeControlled(objects: InstanceObjects, object: RbacObject, what: string): void {
  if (!objects.controls(object))
    throw new OwnershipConflictError(
      `${what} ${objects.namespace}/${object.metadata?.name} is not controlled by ClusterInstance ${objects.instance.metadata.name}`,
    );
}

/** A RoleBinding or Role of the instance, kept to the desired roleRef, subjects and rules. */
async function ensureRbac(
  api: InstanceApi,
  objects: InstanceObjects,
  type: typeof ROLES,
  desired: Desired<RbacObject>,
): Promise<void> {
  const existing = await objects.live<RbacObject>(type, desired.metadata.name);
  if (!existing) {
    if (await api.createIfMissing(type, desired)) return;
    return ensureRbac(api, objects, type, desired);
  }
  mustBeControlled(objects, existing, type.kind);
  if (desired.roleRef && !sameContent(existing.roleRef, desired.roleRef))
    throw new OwnershipConflictError(
      `${type.kind} ${objects.namespace}/${desired.metadata.name} refers to another role`,
    );
  const drifted = desired.roleRef
    ? !sameContent(existing.subjects, desired.subjects)
    : !sameContent(existing.rules, desired.rules);
  if (drifted)
    await api.update(type, {
      ...existing,
      ...(desired.roleRef ? { subjects: desired.subjects } : { rules: desired.rules }),
    });
}

/** The agent's own account, bound to the shared ClusterRole in the instance namespace. */
export async function ensureAgentAccount(
  api: InstanceApi,
  objects: InstanceObjects,
): Promise<void> {
  const instance = objects.instance;
  await ensureAgentClusterRole(api);
  const account = buildAgentServiceAccount(instance);
  const existingAccount = await objects.live<RbacObject>(SERVICE_ACCOUNTS, account.metadata.name);
  if (existingAccount) mustBeControlled(objects, existingAccount, 'ServiceAccount');
  else await objects.ensure(SERVICE_ACCOUNTS, account);
  await ensureRbac(
    api,
    objects,
    ROLE_BINDINGS,
    buildAgentBinding(instance, api.settings.crcAgentClusterRole),
  );
}

/**
 * What the agent of VMI `vmiUid` may write, and no more: its handoff Secret (made empty here),
 * a Role naming it, and the Role's binding. A new VMI moves the Role to its own handoff.
 */
export async function ensureHandoffGrant(
  api: InstanceApi,
  objects: InstanceObjects,
  vmiUid: string,
): Promise<void> {
  const instance = objects.instance;
  const handoff = buildHandoffSecret(instance, vmiUid);
  const existingHandoff = await objects.current<RbacObject>(SECRETS, handoff.metadata.name);
  if (existingHandoff) mustBeControlled(objects, existingHandoff, 'handoff Secret');
  else await objects.ensure(SECRETS, handoff);
  await ensureRbac(api, objects, ROLES, buildHandoffRole(instance, vmiUid));
  await ensureRbac(api, objects, ROLE_BINDINGS, buildHandoffBinding(instance));
}
