import type { StandInKind } from './schema.js';
import { array, boolean, condition, object, string } from './schema.js';

/**
 * The platform operands the readiness gate reads (docs/reference/instances.md#platform-gate),
 * closed: OpenShift Virtualization's HyperConverged (HCO 1.15) and the MultiClusterEngine (MCE
 * 2.9), with the fields we read and the status their operators write.
 */
export const OPERAND_STAND_INS: StandInKind[] = [
  {
    group: 'hco.kubevirt.io',
    version: 'v1beta1',
    kind: 'HyperConverged',
    plural: 'hyperconvergeds',
    scope: 'Namespaced',
    shortNames: ['hco', 'hcos'],
    spec: object({}),
    status: object({
      observedGeneration: { type: 'integer', format: 'int64' },
      conditions: array(condition()),
    }),
    subresources: { status: {} },
  },
  {
    group: 'multicluster.openshift.io',
    version: 'v1',
    kind: 'MultiClusterEngine',
    plural: 'multiclusterengines',
    scope: 'Cluster',
    shortNames: ['mce'],
    spec: object({
      overrides: object({
        components: array(object({ name: string(), enabled: boolean() }, ['enabled', 'name'])),
      }),
    }),
    status: object({ phase: string(), conditions: array(condition(['type', 'status'])) }),
    subresources: { status: {} },
  },
];
