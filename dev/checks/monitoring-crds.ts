import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { downloadGoModule } from '../control-plane/go-build.js';
import type { CrdSource } from '../control-plane/platform-crds/crd-cache.js';
import type { CrdManifest } from '../control-plane/platform-crds/crd-manifest.js';
import { parseCrds, pick } from '../control-plane/platform-crds/crd-manifest.js';

/** The Prometheus Operator's API (OpenShift's monitoring stacks serve the same kinds). */
export const PROMETHEUS_OPERATOR_VERSION = 'v0.85.0';
const MODULE = 'github.com/prometheus-operator/prometheus-operator';
const CRD_DIR = 'example/prometheus-operator-crd';

/**
 * The real ServiceMonitor and PrometheusRule CRDs, from the Prometheus Operator's module (it ships
 * them generated), so the apiserver checks operator/monitoring against their schemas.
 */
export const MONITORING_CRDS: CrdSource = {
  key: `prometheus-operator-${PROMETHEUS_OPERATOR_VERSION}`,
  label: `the Prometheus Operator ${PROMETHEUS_OPERATOR_VERSION} (${MODULE})`,
  async produce(): Promise<CrdManifest[]> {
    const dir = path.join(await downloadGoModule(MODULE, PROMETHEUS_OPERATOR_VERSION), CRD_DIR);
    const crds: CrdManifest[] = [];
    for (const kind of ['servicemonitors', 'prometheusrules']) {
      const file = `monitoring.coreos.com_${kind}.yaml`;
      const crd = pick(
        parseCrds(await readFile(path.join(dir, file), 'utf8')),
        `${kind}.monitoring.coreos.com`,
        this.label,
      );
      crd.metadata.annotations = {
        ...crd.metadata.annotations,
        'guestcluster.opdev.io/source': `${MODULE}@${PROMETHEUS_OPERATOR_VERSION}`,
      };
      crds.push(crd);
    }
    return crds;
  },
};
