import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { downloadGoModule } from '../go-build.js';
import { KUBEVIRT_VERSION } from '../versions.js';
import type { CrdManifest, CrdVersion, JsonSchema } from './crd-manifest.js';
import type { CrdSource } from './crd-cache.js';

const MODULE = 'kubevirt.io/kubevirt';
/** KubeVirt generates its OpenAPI schemas into Go string constants, one per kind's singular. */
const VALIDATIONS = 'pkg/virt-operator/resource/generate/components/validations_generated.go';

/** The raw string literals of KubeVirt's `CRDsValidation` map, by key. */
export function readValidations(goSource: string): Map<string, string> {
  return new Map(
    [...goSource.matchAll(/^\t"([a-z]+)": `([^`]*)`,$/gm)].map((m) => [m[1]!, m[2]!] as const),
  );
}

const column = (
  name: string,
  jsonPath: string,
  type = 'string',
  priority?: number,
): NonNullable<CrdVersion['additionalPrinterColumns']>[number] => ({
  name,
  type,
  jsonPath,
  ...(priority ? { priority } : {}),
});

interface KindFacts {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  columns: NonNullable<CrdVersion['additionalPrinterColumns']>;
  /** The VM has a status subresource; the VMI has none (its status is written with the object). */
  statusSubresource: boolean;
}

/** What virt-operator's component builders give each CRD besides its schema (crds.go). */
const KINDS: KindFacts[] = [
  {
    kind: 'VirtualMachine',
    plural: 'virtualmachines',
    singular: 'virtualmachine',
    shortNames: ['vm', 'vms'],
    columns: [
      column('Age', '.metadata.creationTimestamp', 'date'),
      column('Status', '.status.printableStatus'),
      column('Ready', ".status.conditions[?(@.type=='Ready')].status"),
    ],
    statusSubresource: true,
  },
  {
    kind: 'VirtualMachineInstance',
    plural: 'virtualmachineinstances',
    singular: 'virtualmachineinstance',
    shortNames: ['vmi', 'vmis'],
    columns: [
      column('Age', '.metadata.creationTimestamp', 'date'),
      column('Phase', '.status.phase'),
      column('IP', '.status.interfaces[0].ipAddress'),
      column('NodeName', '.status.nodeName'),
      column('Ready', ".status.conditions[?(@.type=='Ready')].status"),
      column(
        'Live-Migratable',
        ".status.conditions[?(@.type=='LiveMigratable')].status",
        'string',
        1,
      ),
      column('Paused', ".status.conditions[?(@.type=='Paused')].status", 'string', 1),
    ],
    statusSubresource: false,
  },
];

/** kubevirt.io serves v1 (stored) and the deprecated v1alpha3 with the same schema. */
function kubevirtCrd(facts: KindFacts, schema: JsonSchema): CrdManifest {
  const version = (name: string): CrdVersion => ({
    name,
    served: true,
    storage: name === 'v1',
    ...(name === 'v1'
      ? {}
      : {
          deprecated: true,
          deprecationWarning: `kubevirt.io/${name} is now deprecated and will be removed in a future release.`,
        }),
    schema: { openAPIV3Schema: schema },
    ...(facts.statusSubresource ? { subresources: { status: {} } } : {}),
    additionalPrinterColumns: facts.columns,
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${facts.plural}.kubevirt.io`,
      labels: { 'kubevirt.io': '' },
      annotations: { 'guestcluster.opdev.io/source': `${MODULE}@${KUBEVIRT_VERSION}` },
    },
    spec: {
      group: 'kubevirt.io',
      scope: 'Namespaced',
      names: {
        kind: facts.kind,
        listKind: `${facts.kind}List`,
        plural: facts.plural,
        singular: facts.singular,
        shortNames: facts.shortNames,
        categories: ['all'],
      },
      versions: ['v1', 'v1alpha3'].map(version),
    },
  };
}

/** VirtualMachine and VirtualMachineInstance, read from the KubeVirt module's generated schemas. */
export const KUBEVIRT_CRDS: CrdSource = {
  key: `kubevirt-${KUBEVIRT_VERSION}`,
  label: `KubeVirt ${KUBEVIRT_VERSION} (${MODULE})`,
  async produce(): Promise<CrdManifest[]> {
    const dir = await downloadGoModule(MODULE, KUBEVIRT_VERSION);
    const validations = readValidations(await readFile(path.join(dir, VALIDATIONS), 'utf8'));
    return KINDS.map((facts) => {
      const text = validations.get(facts.singular);
      if (!text) throw new Error(`${MODULE}@${KUBEVIRT_VERSION} has no schema for ${facts.kind}`);
      const { openAPIV3Schema } = parse(text) as { openAPIV3Schema: JsonSchema };
      return kubevirtCrd(facts, openAPIV3Schema);
    });
  },
};
