import type { CrdManifest, CrdVersion, JsonSchema } from '../crd-manifest.js';

/**
 * Small builders for the stand-in CRDs' schemas: closed (only the fields named are kept), in the
 * apiserver's wire spelling.
 */
export const object = (
  properties: Record<string, JsonSchema>,
  required?: string[],
  extra: JsonSchema = {},
): JsonSchema => ({ type: 'object', properties, ...(required ? { required } : {}), ...extra });
export const string = (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra });
export const oneOf = (...values: string[]): JsonSchema => ({ type: 'string', enum: values });
export const integer = (): JsonSchema => ({ type: 'integer', format: 'int32' });
export const boolean = (): JsonSchema => ({ type: 'boolean' });
export const array = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  ...extra,
});
export const stringMap = (): JsonSchema => ({
  type: 'object',
  additionalProperties: { type: 'string' },
});
/** Anything goes below here (the open stand-ins' spec and status). */
export const open = (): JsonSchema => ({
  type: 'object',
  'x-kubernetes-preserve-unknown-fields': true,
});
/** A resource.Quantity, as Kubernetes' generators spell it. */
export const quantity = (): JsonSchema => ({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
});
/** metav1.Condition: what HyperShift's and HCO's conditions require. */
export const condition = (
  required = ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
): JsonSchema =>
  object(
    {
      type: string(),
      status: oneOf('True', 'False', 'Unknown'),
      reason: string(),
      message: string(),
      severity: string(),
      lastTransitionTime: string({ format: 'date-time' }),
      observedGeneration: { type: 'integer', format: 'int64' },
    },
    required,
  );

export interface StandInKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  spec: JsonSchema;
  status?: JsonSchema;
  /** CEL rules on spec, with the real CRD's messages. */
  specRules?: { rule: string; message: string }[];
  subresources?: CrdVersion['subresources'];
  columns?: CrdVersion['additionalPrinterColumns'];
}

export const STAND_IN_LABEL = 'guestcluster.opdev.io/stand-in';

/** The CRD of a stand-in kind; like the real ones, status is a subresource unless said otherwise. */
export function standInCrd(kind: StandInKind): CrdManifest {
  const spec = kind.specRules
    ? { ...kind.spec, 'x-kubernetes-validations': kind.specRules }
    : kind.spec;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}`, labels: { [STAND_IN_LABEL]: 'true' } },
    spec: {
      group: kind.group,
      scope: kind.scope,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        ...(kind.shortNames ? { shortNames: kind.shortNames } : {}),
      },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          ...(kind.subresources ? { subresources: kind.subresources } : {}),
          ...(kind.columns ? { additionalPrinterColumns: kind.columns } : {}),
          schema: {
            openAPIV3Schema: object({
              apiVersion: string(),
              kind: string(),
              metadata: { type: 'object' },
              spec,
              ...(kind.status ? { status: kind.status } : {}),
            }),
          },
        },
      ],
    },
  };
}
