import { DATA_VOLUMES, VIRTUAL_MACHINES } from '../../../api/platform-resources.js';
import { failed, holds, waiting } from '../../../reconcile/verdict.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import { buildDataVolume, buildVirtualMachine } from './crc-builders.js';
import { diskFailure, diskPendingMessage } from './crc-disk-failure.js';
import { diskStall } from './crc-disk-progress.js';
import { boundVmProfile, diskSource } from './crc-disk-source.js';
import { ensureCrcRoute } from './crc-endpoint.js';
import { crcDiskName, crcVmName } from './crc-naming.js';
import type { CrcPass, CrcStep } from './crc-pass.js';
import { announce } from './crc-pass.js';
import { currentVmi, runningVmi, unschedulableVmi } from './crc-vmi.js';
import { setRunStrategy } from './crc-hibernation.js';

/*
 * The steps of a crc pass that make the guest's machine
 * (docs/reference/instances.md#crc-provisioning): the disk, the VirtualMachine, its running VMI and
 * the API Route. A conflict in any of them is an APIEndpointConflict, as it has always been.
 */

const backing = Reason.APIEndpointConflict;

/**
 * The VM profile first (a binding to one this operator does not know makes no disk), then the
 * disk source.
 */
export function diskSourceStep(pass: CrcPass): CrcStep<'bundleKey', 'profile' | 'disk'> {
  return {
    name: 'disk source',
    conflict: backing,
    run: async ({ bundleKey }) => {
      const bound = boundVmProfile(pass.objects.instance);
      if ('reason' in bound) return waiting({ ...bound, requeueAfterMs: pass.timings.recheckMs });
      return holds({ profile: bound.profile, disk: await diskSource(pass.objects, bundleKey) });
    },
  };
}

/**
 * The DataVolume, its UID recorded; a disk CDI cannot fill fails the instance, and one still
 * filling is handed on in CDI's words for the VirtualMachine's wait.
 */
export function dataVolumeStep(pass: CrcPass): CrcStep<'disk', 'diskPending'> {
  const { objects } = pass;
  const instance = objects.instance;
  return {
    name: 'DataVolume',
    conflict: backing,
    run: async ({ disk }) => {
      const dataVolume = await objects.ensure(DATA_VOLUMES, buildDataVolume(instance, disk.source));
      if (dataVolume.created)
        announce(
          pass,
          'DataVolumeCreated',
          `Created DataVolume ${objects.namespace}/${crcDiskName(instance)}`,
        );
      pass.records.record('DataVolume', DATA_VOLUMES, dataVolume.object);
      // A pool replaces a failed instance; a retry sees a disk that recovered.
      const failure = diskFailure(dataVolume.object);
      if (failure) return failed(new InstanceFailure(Reason.DataVolumeFailed, failure));
      const pending = diskPendingMessage(dataVolume.object);
      const stalled = diskStall(pass, dataVolume.object, pending);
      if (stalled) return failed(new InstanceFailure(Reason.DataVolumeStalled, stalled));
      return holds({ diskPending: pending });
    },
  };
}

/** The VirtualMachine, its UID recorded, and ready: while its disk fills, it waits for that. */
export function virtualMachineStep(pass: CrcPass): CrcStep<'profile' | 'diskPending'> {
  const { objects } = pass;
  const instance = objects.instance;
  const where = `VirtualMachine ${objects.namespace}/${crcVmName(instance)}`;
  return {
    name: 'VirtualMachine',
    conflict: backing,
    run: async ({ profile, diskPending }) => {
      const vm = await objects.ensure(VIRTUAL_MACHINES, buildVirtualMachine(instance, profile));
      if (vm.created) announce(pass, 'VirtualMachineCreated', `Created ${where}`);
      pass.records.record('VirtualMachine', VIRTUAL_MACHINES, vm.object);
      // A hibernated guest (or one halted by hand) boots again from its disk
      // (docs/reference/instances.md#hibernation).
      if (!vm.created && (await setRunStrategy(pass, vm.object, 'Always')))
        announce(pass, 'VirtualMachineStarted', `Started ${where} again from its disk`);
      if ((vm.object.status as { ready?: boolean } | undefined)?.ready) return holds();
      if (diskPending) return waiting({ reason: Reason.DataVolumePending, message: diskPending });
      // A VM that cannot start because its VMI fits no node says so, in the scheduler's words.
      const vmiWhere = `VirtualMachineInstance ${objects.namespace}/${crcVmName(instance)}`;
      const unscheduled = unschedulableVmi(vmiWhere, await currentVmi(objects));
      if (unscheduled) return waiting(unscheduled);
      return waiting({
        reason: Reason.CRCBackingPending,
        message: `waiting for ${where} to be ready`,
      });
    },
  };
}

/** The running VMI with its address, its UID recorded: what the agent's work belongs to. */
export function vmiStep(pass: CrcPass): CrcStep<never, 'vmiUid' | 'address'> {
  return {
    name: 'VirtualMachineInstance',
    conflict: backing,
    run: async () => {
      const vmi = await runningVmi(pass);
      return 'reason' in vmi ? waiting(vmi) : holds({ vmiUid: vmi.uid, address: vmi.address });
    },
  };
}

/**
 * The API Service and Route; a deleted Route comes back with the host the identity was issued
 * for.
 */
export function apiRouteStep(pass: CrcPass): CrcStep<'endpoint'> {
  return {
    name: 'API Route',
    conflict: backing,
    run: async ({ endpoint }) => {
      if ((await ensureCrcRoute(pass.objects, endpoint)) && pass.draft.wasReady)
        announce(pass, 'APIRouteRestored', `Restored API Route for ${endpoint.hostname}`);
      return holds();
    },
  };
}
