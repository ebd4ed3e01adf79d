import { PVCS } from '../../../client/api/core-resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import {
  ANNOTATION_CDI_DELETE_AFTER_COMPLETION,
  DATA_VOLUMES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { Desired, DesiredMeta } from '../../kube/objects.js';
import type { PersistentVolumeClaim, Secret } from '../../kube/workloads.js';
import type { PlatformObject } from '../clusterinstance/core/platform-object.js';
import { BUILD_NODE, LABEL_BUILD_ROLE } from '../../../contracts/bundle-build.js';
import type { BuildRole } from '../../../contracts/bundle-build.js';
import type { VmProfile } from '../../api/vm-profile.js';
import { profileVmiSpec } from '../../api/vm-profile.js';
import type { Bundle } from './build-meta.js';
import { buildLabels, buildMeta } from './build-meta.js';
import type { BuildNames } from './build-names.js';

/**
 * The run strategy of both build VMs. RerunOnFailure (virt-controller's VM controller): a VMI that
 * Succeeded (the guest powered off) is removed and not started again, one that Failed is
 * restarted, and an in-guest reboot stays in the same VMI. Halted, then RerunOnFailure again,
 * starts a new VMI without the start subresource (the controller starts one when the VM's
 * status.runStrategy differs from the spec's). Manual would need the start/stop subresources.
 */
export const BUILD_RUN_STRATEGY = 'RerunOnFailure';
export const HALTED = 'Halted';

/** A general-purpose cloud image for the installer VM (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2). */
export const INSTALLER_IMAGE = 'quay.io/containerdisks/centos-stream:9';
const WORK_SIZE = '5Gi';
const LIVE_ISO_SIZE = '2Gi';
const DEFAULT_DISK_SIZE = '35Gi';

/**
 * A build's DataVolume: its metadata, kept by CDI once Succeeded. The build checks every object it
 * recorded on each pass, so a DataVolume that CDI's garbage collection removed would fail the
 * build with BuildObjectLost.
 */
function dataVolumeMeta(bundle: Bundle, attempt: string, ns: string, name: string): DesiredMeta {
  return {
    ...buildMeta(bundle, attempt, ns, name),
    annotations: { [ANNOTATION_CDI_DELETE_AFTER_COMPLETION]: 'false' },
  };
}

export interface TargetVmInputs {
  profile: VmProfile;
  dnsIp: string;
  clockOffsetSeconds: number;
  /** The live ISO as a cdrom (P4 until P7). */
  cdrom: boolean;
  runStrategy: string;
}

function claim(
  bundle: Bundle,
  attempt: string,
  ns: string,
  name: string,
  size: string,
): Desired<PersistentVolumeClaim> {
  return {
    apiVersion: PVCS.apiVersion,
    kind: PVCS.kind,
    metadata: buildMeta(bundle, attempt, ns, name),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
    },
  };
}

export const buildWorkPvc = (
  b: Bundle,
  a: string,
  ns: string,
  n: BuildNames,
): Desired<PersistentVolumeClaim> => claim(b, a, ns, n.work, WORK_SIZE);
export const buildLiveIsoPvc = (
  b: Bundle,
  a: string,
  ns: string,
  n: BuildNames,
): Desired<PersistentVolumeClaim> => claim(b, a, ns, n.liveIso, LIVE_ISO_SIZE);

/** The target's root disk: a blank DataVolume of the bundle's virtual disk size (docs/bundle-build.md#stage-map). */
export function buildRootDisk(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
): Desired<PlatformObject> {
  return {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: dataVolumeMeta(bundle, attempt, ns, names.rootDisk),
    spec: {
      source: { blank: {} },
      storage: {
        resources: { requests: { storage: bundle.spec.build?.vm?.diskSize || DEFAULT_DISK_SIZE } },
        ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
      },
    },
  };
}

function placement(bundle: Bundle): Record<string, unknown> {
  const build = bundle.spec.build;
  return {
    ...(build?.nodeSelector ? { nodeSelector: { ...build.nodeSelector } } : {}),
    ...(build?.tolerations ? { tolerations: build.tolerations } : {}),
  };
}

function roleLabels(bundle: Bundle, attempt: string, role: BuildRole): Record<string, string> {
  return { ...buildLabels(bundle, attempt), [LABEL_BUILD_ROLE]: role };
}

/** The target VM `crc` (docs/bundle-build.md#3-the-live-iso-boots-from-the-cdrom-p3-p4-p5-before-the-reboot): the bundle's node, on the bundle's VM profile. */
export function buildTargetVm(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
  inputs: TargetVmInputs,
): Desired<PlatformObject> {
  const vm = bundle.spec.build?.vm ?? {};
  const cores = vm.cores ?? 6;
  const profile = profileVmiSpec(inputs.profile, inputs.clockOffsetSeconds);
  const labels = roleLabels(bundle, attempt, 'target');
  return {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: buildMeta(bundle, attempt, ns, names.targetVm, { [LABEL_BUILD_ROLE]: 'target' }),
    spec: {
      runStrategy: inputs.runStrategy,
      template: {
        metadata: { labels },
        spec: {
          ...placement(bundle),
          hostname: BUILD_NODE.hostname,
          evictionStrategy: 'None',
          // etcd shuts down cleanly in a guest poweroff; a stop must not cut it short.
          terminationGracePeriodSeconds: 600,
          dnsPolicy: 'None',
          dnsConfig: { nameservers: [inputs.dnsIp], searches: ['crc.testing'] },
          domain: {
            cpu: { cores },
            resources: { requests: { memory: vm.memory ?? '14336Mi', cpu: String(cores) } },
            firmware: profile.domain.firmware,
            clock: profile.domain.clock,
            devices: {
              rng: {},
              interfaces: profile.domain.devices.interfaces,
              disks: [
                // The only virtio disk, so /dev/vda (installationDisk).
                { name: 'rootdisk', disk: { bus: 'virtio' }, bootOrder: 1 },
                ...(inputs.cdrom
                  ? [{ name: 'cdrom', cdrom: { bus: 'sata', readonly: true }, bootOrder: 2 }]
                  : []),
              ],
            },
          },
          networks: profile.networks,
          volumes: [
            { name: 'rootdisk', dataVolume: { name: names.rootDisk } },
            ...(inputs.cdrom
              ? [{ name: 'cdrom', persistentVolumeClaim: { claimName: names.liveIso } }]
              : []),
          ],
        },
      },
    },
  };
}

/** The installer VM (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2): a cloud image that only accepts the build's SSH key. */
export function buildInstallerVm(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
  profile: VmProfile,
): Desired<PlatformObject> {
  const labels = roleLabels(bundle, attempt, 'installer');
  return {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: buildMeta(bundle, attempt, ns, names.installerVm, {
      [LABEL_BUILD_ROLE]: 'installer',
    }),
    spec: {
      runStrategy: BUILD_RUN_STRATEGY,
      template: {
        metadata: { labels },
        spec: {
          ...placement(bundle),
          evictionStrategy: 'None',
          domain: {
            cpu: { cores: 2 },
            resources: { requests: { memory: '4Gi', cpu: '2' } },
            devices: {
              interfaces: [{ ...profile.interface }],
              disks: [
                { name: 'containerdisk', disk: { bus: 'virtio' } },
                { name: 'cloudinit', disk: { bus: 'virtio' } },
              ],
            },
          },
          networks: [{ ...profile.network }],
          volumes: [
            { name: 'containerdisk', containerDisk: { image: INSTALLER_IMAGE } },
            {
              name: 'cloudinit',
              // KubeVirt's UserDataSecretRef, serialized as secretRef.
              cloudInitNoCloud: { secretRef: { name: names.installerCloudInit } },
            },
          ],
        },
      },
    },
  };
}

/** The installer VM's cloud-init: the build's public key for `core`, nothing else. */
export function buildInstallerCloudInit(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
  publicKeyLine: string,
): Desired<Secret> {
  const userdata = [
    '#cloud-config',
    'users:',
    '  - name: core',
    '    sudo: ALL=(ALL) NOPASSWD:ALL',
    '    ssh_authorized_keys:',
    `      - ${publicKeyLine.trim()}`,
    '',
  ].join('\n');
  return {
    apiVersion: 'v1',
    kind: SECRETS.kind,
    metadata: buildMeta(bundle, attempt, ns, names.installerCloudInit),
    type: 'Opaque',
    data: { userdata: Buffer.from(userdata).toString('base64') },
  };
}

/** The golden DataVolume (P12): a CDI clone of the stopped root disk. */
export function buildGoldenDataVolume(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
  goldenName: string,
): Desired<PlatformObject> {
  const size = bundle.spec.goldenVolumeSize || bundle.spec.build?.vm?.diskSize || DEFAULT_DISK_SIZE;
  return {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: dataVolumeMeta(bundle, attempt, ns, goldenName),
    spec: {
      source: { pvc: { namespace: ns, name: names.rootDisk } },
      storage: {
        resources: { requests: { storage: size } },
        ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
      },
    },
  };
}
