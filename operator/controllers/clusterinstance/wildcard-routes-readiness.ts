import type { KubeObject } from '../../kube/objects.js';
import type { OperandReadiness } from './platform-readiness.js';

export interface IngressControllerObject extends KubeObject {
  spec?: { routeAdmission?: { wildcardPolicy?: string } };
}

/** The management cluster's default router, whose Route admission policy hosted guests rely on. */
export const DEFAULT_INGRESS_CONTROLLER = {
  namespace: 'openshift-ingress-operator',
  name: 'default',
};

const FIX = `oc -n ${DEFAULT_INGRESS_CONTROLLER.namespace} patch ingresscontroller ${DEFAULT_INGRESS_CONTROLLER.name} --type=merge -p '{"spec":{"routeAdmission":{"wildcardPolicy":"WildcardsAllowed"}}}'`;

/**
 * Whether the default IngressController admits wildcard Routes: a hosted cluster with
 * baseDomainPassthrough serves its own apps (`*.apps.<guest>.apps.<management>`) through one
 * wildcard Route, which the router refuses under its default policy, WildcardsDisallowed.
 * `null`: the IngressController does not exist; undefined: it cannot be read.
 */
export function wildcardRoutesReadiness(
  ingressController: IngressControllerObject | null | undefined,
): OperandReadiness {
  const where = `IngressController ${DEFAULT_INGRESS_CONTROLLER.namespace}/${DEFAULT_INGRESS_CONTROLLER.name}`;
  if (ingressController === undefined)
    return { ready: false, reason: 'APIUnavailable', message: `cannot read ${where}` };
  if (ingressController === null)
    return { ready: false, reason: 'OperandNotFound', message: `no ${where} was found` };
  const policy = ingressController.spec?.routeAdmission?.wildcardPolicy || 'WildcardsDisallowed';
  if (policy !== 'WildcardsAllowed')
    return {
      ready: false,
      reason: 'WildcardRoutesNotAllowed',
      message: `${where} does not admit wildcard Routes (spec.routeAdmission.wildcardPolicy is ${policy}); hosted clusters serve their apps domain through one, allow them with: ${FIX}`,
    };
  return { ready: true, reason: 'OperandReady', message: `${where} admits wildcard Routes` };
}
