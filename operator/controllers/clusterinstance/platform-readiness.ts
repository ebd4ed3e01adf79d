import {
  CUSTOM_RESOURCE_DEFINITIONS,
  DEPLOYMENTS,
  HYPERCONVERGEDS,
  INGRESS_CONTROLLERS,
  MULTICLUSTERENGINES,
} from '../../api/platform-resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { InstanceApi } from './core/instance-api.js';
import type { Topology } from './core/topology.js';
import type { IngressControllerObject } from './wildcard-routes-readiness.js';
import {
  DEFAULT_INGRESS_CONTROLLER,
  wildcardRoutesReadiness,
} from './wildcard-routes-readiness.js';

/**
 * The verdict on one platform operand (docs/reference/instances.md#platform-gate): a reason and
 * message for its condition.
 */
export interface OperandReadiness {
  ready: boolean;
  reason: string;
  message: string;
}

interface Operand extends KubeObject {
  spec?: { overrides?: { components?: { name?: string; enabled?: boolean }[] } };
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string }[];
    availableReplicas?: number;
  };
}

const notReady = (reason: string, message: string): OperandReadiness => ({
  ready: false,
  reason,
  message,
});
const HCO_CONDITIONS: [string, string][] = [
  ['Available', 'True'],
  ['Progressing', 'False'],
  ['Degraded', 'False'],
];
const HYPERSHIFT_CRDS = [
  'hostedclusters.hypershift.openshift.io',
  'nodepools.hypershift.openshift.io',
];

/** Exactly one operand of a kind, or why not. */
function singleton(kind: string, items: Operand[] | undefined): Operand | OperandReadiness {
  if (!items) return notReady('APIUnavailable', `cannot read ${kind}`);
  if (items.length === 0) return notReady('OperandNotFound', `no ${kind} operand was found`);
  if (items.length > 1)
    return notReady(
      'MultipleOperandsFound',
      `found ${items.length} ${kind} operands; exactly one is required`,
    );
  return items[0]!;
}

/** KubeVirt's HyperConverged: one, status current, Available, not Progressing, not Degraded. */
export function hyperConvergedReadiness(items: Operand[] | undefined): OperandReadiness {
  const operand = singleton('HyperConverged', items);
  if ('ready' in operand) return operand;
  const observed = operand.status?.observedGeneration;
  if (observed === undefined || observed < (operand.metadata?.generation ?? 0))
    return notReady('StatusStale', 'HyperConverged status does not reflect its latest generation');
  for (const [type, status] of HCO_CONDITIONS) {
    if (!operand.status?.conditions?.some((c) => c.type === type && c.status === status))
      return notReady('OperandNotReady', `HyperConverged condition ${type} must be ${status}`);
  }
  return { ready: true, reason: 'OperandReady', message: 'HyperConverged is available' };
}

export interface HyperShiftFacts {
  engines: Operand[] | undefined;
  /** CRD name → the CRD, or undefined when it cannot be read. */
  crds: Map<string, Operand | undefined>;
  /** The hypershift/operator Deployment, or undefined when it cannot be read. */
  operator: Operand | undefined;
}

/**
 * The MultiClusterEngine with HyperShift enabled, its CRDs Established and its operator running.
 */
export function multiClusterEngineReadiness(facts: HyperShiftFacts): OperandReadiness {
  const engine = singleton('MultiClusterEngine', facts.engines);
  if ('ready' in engine) return engine;
  const hypershift = engine.spec?.overrides?.components?.find((c) => c.name === 'hypershift');
  if (!hypershift || hypershift.enabled === false)
    return notReady(
      'ComponentDisabled',
      'MultiClusterEngine does not enable the hypershift component (spec.overrides.components)',
    );
  const crds = crdReadiness(facts.crds);
  if (crds) return crds;
  if (!facts.operator)
    return notReady('APIUnavailable', 'cannot read Deployment hypershift/operator');
  if ((facts.operator.status?.availableReplicas ?? 0) < 1)
    return notReady('OperandNotReady', 'Deployment hypershift/operator has no available replica');
  return {
    ready: true,
    reason: 'OperandReady',
    message: 'HyperShift APIs and operator are available',
  };
}

/** Both HyperShift CRDs readable and Established, or why not. */
function crdReadiness(crds: HyperShiftFacts['crds']): OperandReadiness | undefined {
  for (const name of HYPERSHIFT_CRDS) {
    const crd = crds.get(name);
    if (!crd) return notReady('APIUnavailable', `cannot read ${name}`);
    if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
      return notReady('OperandNotReady', `CustomResourceDefinition ${name} is not Established`);
  }
  return undefined;
}

async function orUndefined<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch {
    return undefined;
  }
}

/** The default IngressController; null when there is none, undefined when it cannot be read. */
async function readIngressController(
  api: InstanceApi,
): Promise<IngressControllerObject | null | undefined> {
  try {
    const found = await api.get<IngressControllerObject>(
      INGRESS_CONTROLLERS,
      DEFAULT_INGRESS_CONTROLLER.name,
      DEFAULT_INGRESS_CONTROLLER.namespace,
    );
    return found ?? null;
  } catch {
    return undefined;
  }
}

export type PlatformGate = Topology['platformGate'];

/** The conditions the platform gate sets, one per operand it judges. */
export const PLATFORM_GATE_CONDITIONS = [
  'HyperConvergedReady',
  'MultiClusterEngineReady',
  'WildcardRoutesAllowed',
] as const;
type PlatformGateCondition = (typeof PLATFORM_GATE_CONDITIONS)[number];
export type PlatformVerdicts = { type: PlatformGateCondition; readiness: OperandReadiness }[];

/**
 * Reads the operands live and judges them; the MultiClusterEngine and the router's wildcard Route
 * policy only when the topology asks for them (hcp).
 */
export async function readPlatformReadiness(
  api: InstanceApi,
  gate: PlatformGate,
): Promise<PlatformVerdicts> {
  const hco = await orUndefined(api.list<Operand>(HYPERCONVERGEDS, {}));
  const verdicts: PlatformVerdicts = [
    { type: 'HyperConvergedReady', readiness: hyperConvergedReadiness(hco) },
  ];
  if (gate.multiClusterEngine)
    verdicts.push({
      type: 'MultiClusterEngineReady',
      readiness: multiClusterEngineReadiness(await readHyperShiftFacts(api)),
    });
  if (gate.wildcardRoutes)
    verdicts.push({
      type: 'WildcardRoutesAllowed',
      readiness: wildcardRoutesReadiness(await readIngressController(api)),
    });
  return verdicts;
}

async function readHyperShiftFacts(api: InstanceApi): Promise<HyperShiftFacts> {
  const read = (name: string): Promise<Operand | undefined> =>
    orUndefined(api.get<Operand>(CUSTOM_RESOURCE_DEFINITIONS, name));
  const [engines, operator, ...crds] = await Promise.all([
    orUndefined(api.list<Operand>(MULTICLUSTERENGINES, {})),
    orUndefined(api.get<Operand>(DEPLOYMENTS, 'operator', 'hypershift')),
    ...HYPERSHIFT_CRDS.map(read),
  ]);
  return { engines, operator, crds: new Map(HYPERSHIFT_CRDS.map((name, i) => [name, crds[i]])) };
}
