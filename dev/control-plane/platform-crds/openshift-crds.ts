import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { downloadGoModule } from '../go-build.js';
import { OPENSHIFT_API_BRANCH, OPENSHIFT_API_VERSION } from '../versions.js';
import type { CrdSource } from './crd-cache.js';
import type { CrdManifest } from './crd-manifest.js';
import { parseCrds } from './crd-manifest.js';

const MODULE = 'github.com/openshift/api';

/** The generated CRD files of the OpenShift kinds we serve (the Default feature set). */
const FILES = [
  'route/v1/zz_generated.crd-manifests/routes.crd.yaml',
  'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_ingresses.crd.yaml',
  'config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml',
  'config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml',
  'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers-Default.crd.yaml',
  'config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_oauths.crd.yaml',
  'operator/v1/zz_generated.crd-manifests/0000_50_ingress_00_ingresscontrollers.crd.yaml',
];

/**
 * Route, the config.openshift.io kinds (Ingress and ClusterVersion of the management cluster;
 * ClusterVersion, ClusterOperator, APIServer and OAuth of a CRC guest) and IngressController, as
 * the OpenShift API module ships them.
 */
export const OPENSHIFT_CRDS: CrdSource = {
  key: `openshift-api-${OPENSHIFT_API_VERSION}`,
  label: `OpenShift API ${OPENSHIFT_API_BRANCH} (${MODULE}@${OPENSHIFT_API_VERSION})`,
  async produce(): Promise<CrdManifest[]> {
    const dir = await downloadGoModule(MODULE, OPENSHIFT_API_VERSION);
    const crds: CrdManifest[] = [];
    for (const file of FILES) {
      const found = parseCrds(await readFile(path.join(dir, file), 'utf8'));
      if (found.length !== 1)
        throw new Error(`${MODULE}@${OPENSHIFT_API_VERSION}: ${file} holds ${found.length} CRDs`);
      crds.push(found[0]!);
    }
    return crds;
  },
};
