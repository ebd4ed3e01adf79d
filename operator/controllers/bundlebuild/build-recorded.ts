import {
  CONFIG_MAPS,
  NETWORK_POLICIES,
  PVCS,
  SERVICES,
} from '../../../client/api/core-resources.js';
import { DATA_VOLUMES, DEPLOYMENTS, VIRTUAL_MACHINES } from '../../api/platform-resources.js';
import { INSTANCES, SECRETS } from '../../../client/api/resources.js';
import type { NamespacedType } from '../../../client/kube/resource-type.js';
import type { BuildPass } from './build-pass.js';
import type { Role } from './build-record.js';
import { ROLE } from './build-record.js';

/**
 * The kind of each role a pass checks. Not the VMIs: they end and start by design (P7, P11), and
 * the stages check them against the steps bound to them (runningVmi, onTarget).
 */
export const CHECKED: Partial<Record<Role, NamespacedType>> = {
  [ROLE.inputs]: SECRETS,
  [ROLE.sshKey]: SECRETS,
  [ROLE.work]: PVCS,
  [ROLE.dnsConfig]: CONFIG_MAPS,
  [ROLE.dnsDeployment]: DEPLOYMENTS,
  [ROLE.dnsService]: SERVICES,
  [ROLE.installerInit]: SECRETS,
  [ROLE.installerVm]: VIRTUAL_MACHINES,
  [ROLE.liveIso]: PVCS,
  [ROLE.rootDisk]: DATA_VOLUMES,
  [ROLE.targetVm]: VIRTUAL_MACHINES,
  [ROLE.golden]: DATA_VOLUMES,
  [ROLE.validation]: INSTANCES,
  [ROLE.guestPolicy]: NETWORK_POLICIES,
};

/**
 * Every object the build recorded is still the one it made, whichever stage made it: one deleted
 * or replaced later fails the build at once (BuildObjectLost, BuildObjectReplaced), rather than
 * when a later step needs it (a Job waiting for a claim that is gone would only time out).
 */
export async function checkRecorded(pass: BuildPass): Promise<void> {
  for (const object of pass.build.objects ?? []) {
    const type = CHECKED[object.role as Role];
    if (!type || !object.uid) continue;
    const failure = pass.objects.verify(object.role as Role, await pass.current(type, object.name));
    if (failure) throw failure;
  }
}
