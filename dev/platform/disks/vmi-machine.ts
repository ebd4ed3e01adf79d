import type { VmiObject } from '../host/platform-kinds.js';

/**
 * The machine a VMI gives its guest, as far as an installed CRC disk depends on it: the firmware
 * its bootloader was laid out for, and the NIC its node was installed behind. A disk the simulated
 * build guest installs records the machine of its VMI (simulated-disk.ts); a CRC guest booted from
 * it on another machine does not come up (bootMismatch).
 */
export interface InstalledMachine {
  /** `bios` or `efi`. */
  firmware: string;
  /** The binding of the VMI's first interface: masquerade, bridge, sriov, … */
  binding: string;
  /** The network of that interface: `pod`, or `multus:<networkName>`. */
  network: string;
}

/** The guest NIC's address behind KubeVirt's masquerade binding (its default 10.0.2.0/24). */
export const MASQUERADE_GUEST_IP = '10.0.2.2';

const BINDINGS = ['masquerade', 'bridge', 'sriov', 'slirp', 'macvtap', 'passt'];

type Nic = { name?: string; binding?: { name?: string } } & object;

interface MachineSpec {
  domain?: {
    firmware?: { bootloader?: { bios?: unknown; efi?: unknown } };
    devices?: { interfaces?: Nic[] };
  };
  networks?: { name?: string; pod?: unknown; multus?: { networkName?: string } }[];
}

/** An interface's binding: one of KubeVirt's own, or a binding plugin's name. */
function bindingOf(nic: Nic): string {
  const own = BINDINGS.find((b) => b in nic);
  if (own) return own;
  return nic.binding?.name ? `plugin:${nic.binding.name}` : 'bridge';
}

function networkOf(spec: MachineSpec, name: string | undefined): string {
  const network = spec.networks?.find((n) => n.name === name);
  if (network?.pod) return 'pod';
  return network?.multus ? `multus:${network.multus.networkName}` : 'none';
}

/**
 * The machine of a VMI spec, with KubeVirt's defaults for what it leaves out: BIOS without a
 * bootloader (amd64); without interfaces and networks, virt-api's mutating webhook attaches the
 * pod network with the cluster's default binding (`network.defaultNetworkInterface`, bridge
 * unless configured: KubeVirt's own default).
 */
export function vmiMachine(vmi: Pick<VmiObject, 'spec'>): InstalledMachine {
  const spec = (vmi.spec ?? {}) as MachineSpec;
  const firmware = spec.domain?.firmware?.bootloader?.efi ? 'efi' : 'bios';
  const nic = spec.domain?.devices?.interfaces?.[0];
  if (!nic) return { firmware, binding: 'bridge', network: 'pod' };
  return { firmware, binding: bindingOf(nic), network: networkOf(spec, nic.name) };
}

/**
 * Why a guest installed on `installed` does not come up on `booted`, or undefined when it does:
 * - `firmware`: the firmware finds no bootloader it can run on the disk (SeaBIOS reports "No
 *   bootable device", OVMF stops in its boot manager), so the domain runs and no OS ever starts;
 * - `network`: the OS boots and sshd answers, but the node is not behind the NIC it was installed
 *   and sealed behind (masquerade's 10.0.2.2 via 10.0.2.1 on the pod network, which br-ex and
 *   the OVN-Kubernetes gateway were set up with during the install; another binding hands the
 *   guest the pod's own address instead), so its cluster does not get ready: the API port
 *   answers 503 for good.
 */
export function bootMismatch(
  installed: InstalledMachine,
  booted: InstalledMachine,
): 'firmware' | 'network' | undefined {
  if (installed.firmware !== booted.firmware) return 'firmware';
  if (installed.binding !== booted.binding || installed.network !== booted.network)
    return 'network';
  return undefined;
}

/** A machine for messages: `bios, masquerade on pod`. */
export const describeMachine = (m: InstalledMachine): string =>
  `${m.firmware}, ${m.binding} on ${m.network}`;
