import type { Descriptor } from './descriptors.js';
import { descriptorsOf, displayName } from './descriptors.js';
import type { InstallPermissions } from './install-permissions.js';
import type { Manifest } from './manifests.js';
import { withoutNamespace } from './manifests.js';

/** operator/olm/csv-metadata.yaml: what the CSV says beyond the deploy manifests and the CRDs. */
export interface CsvMetadata {
  package: string;
  channel: string;
  openshiftVersions: string;
  minKubeVersion: string;
  displayName: string;
  provider: string;
  repository: string;
  maturity: string;
  capabilities: string;
  categories: string;
  keywords: string[];
  maintainers: { name: string; email: string }[];
  summary: string;
  description: string;
  examples: string[];
}

export interface CsvInputs {
  metadata: CsvMetadata;
  version: string;
  icon: { base64data: string; mediatype: string };
  namespace: Manifest;
  deployments: Manifest[];
  crds: Manifest[];
  permissions: InstallPermissions;
  examples: Manifest[];
}

interface CrdVersion {
  name: string;
  storage: boolean;
  schema?: { openAPIV3Schema?: { description?: string; properties?: Record<string, never> } };
}

interface CrdManifest extends Manifest {
  spec: { names: { kind: string }; versions: CrdVersion[] };
}

interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string }[];
}

function ownedCrd(crd: CrdManifest): Record<string, unknown> {
  const version = crd.spec.versions.find((v) => v.storage)!;
  const schema = version.schema?.openAPIV3Schema as
    { description?: string; properties?: { spec?: object; status?: object } } | undefined;
  const description = schema?.description?.trim() ?? '';
  const owned: Record<string, unknown> = {
    name: crd.metadata.name,
    version: version.name,
    kind: crd.spec.names.kind,
    displayName: displayName(crd.spec.names.kind),
    description: /^[^.]*\./.exec(description)?.[0] ?? description,
  };
  const spec: Descriptor[] = descriptorsOf(schema?.properties?.spec, 'spec');
  const status: Descriptor[] = descriptorsOf(schema?.properties?.status, 'status');
  if (spec.length > 0) owned.specDescriptors = spec;
  if (status.length > 0) owned.statusDescriptors = status;
  return owned;
}

function containersOf(deployment: Manifest): Container[] {
  const spec = deployment.spec as { template: { spec: { containers: Container[] } } };
  return spec.template.spec.containers;
}

/** The operator's image, and every image it runs Jobs with (`*_IMAGE` variables). */
function relatedImages(deployments: readonly Manifest[]): { name: string; image: string }[] {
  const images = new Map<string, string>();
  for (const container of deployments.flatMap(containersOf)) {
    images.set(
      container.name === 'manager' ? 'guestcluster-operator' : container.name,
      container.image,
    );
    for (const variable of container.env ?? [])
      if (variable.name.endsWith('_IMAGE') && variable.value)
        images.set(
          variable.name.slice(0, -'_IMAGE'.length).toLowerCase().replaceAll('_', '-'),
          variable.value,
        );
  }
  return [...images].map(([name, image]) => ({ name, image }));
}

/** The ClusterServiceVersion: OLM's description of the operator, its install and its APIs. */
export function clusterServiceVersion(inputs: CsvInputs): Manifest {
  const { metadata, permissions } = inputs;
  const operatorImage = relatedImages(inputs.deployments)[0]?.image ?? '';
  return {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: {
      name: `${metadata.package}.v${inputs.version}`,
      annotations: {
        'alm-examples': JSON.stringify(inputs.examples.map(withoutNamespace), null, 2),
        capabilities: metadata.capabilities,
        categories: metadata.categories,
        containerImage: operatorImage,
        description: metadata.summary,
        repository: metadata.repository,
        support: metadata.provider,
        'operatorframework.io/suggested-namespace': inputs.namespace.metadata.name,
        'operatorframework.io/suggested-namespace-template': JSON.stringify(inputs.namespace),
        // OpenShift's infrastructure features: it honours the cluster's egress proxy (HTTPS_PROXY,
        // NO_PROXY, which OLM sets); it downloads CRC bundles, so it is not for disconnected
        // clusters without a mirror (CRC_BUNDLE_MIRROR_URL).
        'features.operators.openshift.io/disconnected': 'false',
        'features.operators.openshift.io/fips-compliant': 'false',
        'features.operators.openshift.io/proxy-aware': 'true',
        'features.operators.openshift.io/tls-profiles': 'false',
        'features.operators.openshift.io/token-auth-aws': 'false',
        'features.operators.openshift.io/token-auth-azure': 'false',
        'features.operators.openshift.io/token-auth-gcp': 'false',
        'features.operators.openshift.io/cnf': 'false',
        'features.operators.openshift.io/cni': 'false',
        'features.operators.openshift.io/csi': 'false',
      },
    },
    spec: {
      displayName: metadata.displayName,
      description: metadata.description,
      version: inputs.version,
      maturity: metadata.maturity,
      minKubeVersion: metadata.minKubeVersion,
      keywords: metadata.keywords,
      maintainers: metadata.maintainers,
      provider: { name: metadata.provider },
      links: [{ name: 'Source', url: metadata.repository }],
      icon: [inputs.icon],
      // The operator watches every namespace (pools opt in with a label); CRCBundles are
      // cluster-scoped. It does not read OLM's target namespaces.
      installModes: [
        { type: 'OwnNamespace', supported: false },
        { type: 'SingleNamespace', supported: false },
        { type: 'MultiNamespace', supported: false },
        { type: 'AllNamespaces', supported: true },
      ],
      install: {
        strategy: 'deployment',
        spec: {
          clusterPermissions: permissions.clusterPermissions,
          permissions: permissions.permissions,
          deployments: inputs.deployments.map((deployment) => ({
            name: deployment.metadata.name,
            label: deployment.metadata.labels ?? {},
            spec: deployment.spec,
          })),
        },
      },
      customresourcedefinitions: { owned: (inputs.crds as CrdManifest[]).map(ownedCrd) },
      relatedImages: relatedImages(inputs.deployments),
    },
  };
}
