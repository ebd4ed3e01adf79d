import { quantityBytes } from '../../../operator/kube/quantity.js';
import type { Affinity, Toleration } from './node-filters.js';
import type { ResourceList } from './resources.js';

/** The VMI spec fields that decide what its launcher pod asks of a node. */
export interface VmiSchedulingSpec {
  nodeSelector?: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
  domain?: {
    resources?: { requests?: ResourceList; limits?: ResourceList };
    memory?: { guest?: string };
    cpu?: { cores?: number; sockets?: number; threads?: number };
  };
}

/** The label virt-handler puts on the nodes it runs on; launcher pods select it. */
export const KUBEVIRT_SCHEDULABLE = 'kubevirt.io/schedulable';
/** KubeVirt's default cpuAllocationRatio: a vCPU asks for a tenth of a CPU. */
const CPU_ALLOCATION_RATIO = 10;
const MI = 2 ** 20;
/**
 * The fixed part of the launcher's memory overhead (kubevirt pkg/hypervisor/kvm/
 * hypervisorbackend.go, GetMemoryOverhead): virt-launcher-monitor 25Mi, virt-launcher 100Mi,
 * virtlogd 25Mi, virtqemud 40Mi, qemu 50Mi, the IOThread 8Mi and the graphics device 32Mi.
 */
const FIXED_OVERHEAD = (25 + 100 + 25 + 40 + 50 + 8 + 32) * MI;
const PER_VCPU_OVERHEAD = 8 * MI;

/** vCPUs of a domain: cores × sockets × threads, each 1 when unset (pkg/util/hardware). */
function vcpus(cpu: NonNullable<VmiSchedulingSpec['domain']>['cpu']): number {
  if (!cpu) return 1;
  return (cpu.cores || 1) * (cpu.sockets || 1) * (cpu.threads || 1);
}

/**
 * The compute container's requests of a VMI's launcher pod, as virt-controller renders them
 * (kubevirt pkg/virt-controller/services/renderresources.go): memory is the VMI's memory request
 * (or its limit, or else spec.domain.memory.guest; WithMemoryRequests) plus the launcher's
 * overhead (WithMemoryOverhead: the fixed part, 8Mi per vCPU and the guest's page tables, a
 * 512th of its memory); cpu is the VMI's cpu request, else vCPUs / cpuAllocationRatio
 * (WithoutDedicatedCPU). A simplification: x86, no VFIO, TPM, SEV or hugepages, no sidecars.
 */
export function launcherRequests(spec: VmiSchedulingSpec | undefined): Record<string, string> {
  const domain = spec?.domain ?? {};
  const requests = domain.resources?.requests ?? {};
  const limits = domain.resources?.limits ?? {};
  const memory = requests.memory ?? limits.memory ?? domain.memory?.guest;
  const guest = memory ? quantityBytes(memory) : 0;
  const count = domain.cpu ? vcpus(domain.cpu) : Math.max(1, Math.ceil(Number(requests.cpu) || 1));
  const overhead = FIXED_OVERHEAD + PER_VCPU_OVERHEAD * count + Math.floor(guest / 512);
  const cpu = requests.cpu ?? `${Math.ceil((vcpus(domain.cpu) * 1000) / CPU_ALLOCATION_RATIO)}m`;
  return { cpu, memory: String(Math.ceil(guest + overhead)) };
}

/** The launcher pod's placement: the VMI's, and a node where virt-handler runs (template.go). */
export function launcherPlacement(spec: VmiSchedulingSpec | undefined): {
  nodeSelector: Record<string, string>;
  affinity?: Affinity;
  tolerations?: Toleration[];
} {
  return {
    nodeSelector: { ...spec?.nodeSelector, [KUBEVIRT_SCHEDULABLE]: 'true' },
    ...(spec?.affinity ? { affinity: spec.affinity } : {}),
    ...(spec?.tolerations ? { tolerations: spec.tolerations } : {}),
  };
}
