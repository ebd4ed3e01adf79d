import { describe, expect, it } from '@jest/globals';
import type { HyperShiftFacts } from './platform-readiness.js';
import { hyperConvergedReadiness, multiClusterEngineReadiness } from './platform-readiness.js';
import { wildcardRoutesReadiness } from './wildcard-routes-readiness.js';

const conditions = (available: string, progressing = 'False', degraded = 'False') => [
  { type: 'Available', status: available },
  { type: 'Progressing', status: progressing },
  { type: 'Degraded', status: degraded },
];
const hco = (status: object, generation = 2) => ({ metadata: { name: 'hco', generation }, status });
const established = { status: { conditions: [{ type: 'Established', status: 'True' }] } };
const engine = (components: { name: string; enabled?: boolean }[]) => ({
  metadata: { name: 'multiclusterengine' },
  spec: { overrides: { components } },
});
const facts = (overrides: Partial<HyperShiftFacts> = {}): HyperShiftFacts => ({
  engines: [engine([{ name: 'hypershift' }])],
  crds: new Map([
    ['hostedclusters.hypershift.openshift.io', established],
    ['nodepools.hypershift.openshift.io', established],
  ]),
  operator: { status: { availableReplicas: 1 } },
  ...overrides,
});

describe('platform readiness', () => {
  it.each([
    ['unreadable', undefined, 'APIUnavailable', 'cannot read HyperConverged'],
    ['missing', [], 'OperandNotFound', 'no HyperConverged operand was found'],
    [
      'two',
      [hco({}), hco({})],
      'MultipleOperandsFound',
      'found 2 HyperConverged operands; exactly one is required',
    ],
    [
      'stale',
      [hco({ observedGeneration: 1, conditions: conditions('True') })],
      'StatusStale',
      'HyperConverged status does not reflect its latest generation',
    ],
    [
      'unavailable',
      [hco({ observedGeneration: 2, conditions: conditions('False') })],
      'OperandNotReady',
      'HyperConverged condition Available must be True',
    ],
    [
      'degraded',
      [hco({ observedGeneration: 2, conditions: conditions('True', 'False', 'True') })],
      'OperandNotReady',
      'HyperConverged condition Degraded must be False',
    ],
    [
      'ready',
      [hco({ observedGeneration: 2, conditions: conditions('True') })],
      'OperandReady',
      'HyperConverged is available',
    ],
  ])('HyperConverged %s', (_, items, reason, message) => {
    expect(hyperConvergedReadiness(items)).toEqual({
      ready: reason === 'OperandReady',
      reason,
      message,
    });
  });

  it.each<[string, Partial<HyperShiftFacts>, string]>([
    ['ready', {}, 'OperandReady'],
    ['no engine', { engines: [] }, 'OperandNotFound'],
    [
      'hypershift disabled',
      { engines: [engine([{ name: 'hypershift', enabled: false }])] },
      'ComponentDisabled',
    ],
    ['hypershift not listed', { engines: [engine([])] }, 'ComponentDisabled'],
    ['CRD unreadable', { crds: new Map() }, 'APIUnavailable'],
    [
      'CRD not established',
      {
        crds: new Map<string, object>([
          ['hostedclusters.hypershift.openshift.io', { status: {} }],
          ['nodepools.hypershift.openshift.io', established],
        ]),
      },
      'OperandNotReady',
    ],
    ['operator unreadable', { operator: undefined }, 'APIUnavailable'],
    [
      'operator not available',
      { operator: { status: { availableReplicas: 0 } } },
      'OperandNotReady',
    ],
  ])('MultiClusterEngine: %s', (_, overrides, reason) => {
    expect(multiClusterEngineReadiness(facts(overrides)).reason).toBe(reason);
  });

  it.each<[string, Parameters<typeof wildcardRoutesReadiness>[0], boolean, string]>([
    ['unreadable', undefined, false, 'APIUnavailable'],
    ['missing', null, false, 'OperandNotFound'],
    ['at the default policy', { spec: {} }, false, 'WildcardRoutesNotAllowed'],
    [
      'disallowing them',
      { spec: { routeAdmission: { wildcardPolicy: 'WildcardsDisallowed' } } },
      false,
      'WildcardRoutesNotAllowed',
    ],
    [
      'allowing them',
      { spec: { routeAdmission: { wildcardPolicy: 'WildcardsAllowed' } } },
      true,
      'OperandReady',
    ],
  ])('wildcard Routes: an IngressController %s', (_, ingressController, ready, reason) => {
    expect(wildcardRoutesReadiness(ingressController)).toMatchObject({ ready, reason });
  });

  it('says how to allow wildcard Routes', () => {
    expect(wildcardRoutesReadiness({ spec: {} }).message).toBe(
      'IngressController openshift-ingress-operator/default does not admit wildcard Routes ' +
        '(spec.routeAdmission.wildcardPolicy is WildcardsDisallowed); hosted clusters serve their ' +
        'apps domain through one, allow them with: oc -n openshift-ingress-operator patch ' +
        'ingresscontroller default --type=merge -p \'{"spec":{"routeAdmission":{"wildcardPolicy":"WildcardsAllowed"}}}\'',
    );
  });
});
