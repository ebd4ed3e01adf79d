import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { guestclusterCacheDir } from '../control-plane/binaries.js';
import type { GoModulePlan } from '../control-plane/go-build.js';
import { ensureBinaries, GENERATED_MODULE } from '../control-plane/go-build.js';
import { projectRoot } from '../control-plane/project-root.js';

/**
 * The upstream checkers the tests run on what the repository ships for monitoring and OLM, built
 * from Go modules and cached by version like the control plane (docs/adr/0028). Changing a version
 * or one of our Go sources changes the cache key.
 */
export const PROMETHEUS_MODULE_VERSION = 'v0.316.0';
export const GRAFANA_SDK_VERSION = 'v0.0.22';
export const OPERATOR_FRAMEWORK_API_VERSION = 'v0.45.0';

export interface MonitoringChecks {
  promtool: string;
  dashboardCheck: string;
}

/** Our own main packages, read from dev/checks/<name>/main.go. */
async function ourSource(name: string): Promise<string> {
  return readFile(path.join(projectRoot(), 'dev', 'checks', name, 'main.go'), 'utf8');
}

function shortHash(content: string): string {
  return createHash('sha256').update(content).digest('hex').slice(0, 12);
}

async function ensureChecks(
  plan: GoModulePlan,
  log: (message: string) => void,
): Promise<(binary: string) => string> {
  const base = path.join(guestclusterCacheDir(), 'tools');
  const binDir = path.join(base, `${plan.name}-${process.platform}-${process.arch}`, 'bin');
  await ensureBinaries(Object.keys(plan.packages), binDir, path.join(base, 'build'), log, [plan]);
  return (binary) => path.join(binDir, binary);
}

/**
 * promtool (Prometheus' own rule checker and rule unit tests) and dashboard-check (Grafana's
 * dashboard schema and Prometheus' PromQL parser). promtool is built without its service
 * discoveries (`remove_all_sd`), which no rule check uses and which would make the first build
 * several times bigger; the two are cached apart, so that a change of our checker does not build
 * promtool again.
 */
export async function monitoringChecks(log: (message: string) => void): Promise<MonitoringChecks> {
  const prometheus = `github.com/prometheus/prometheus ${PROMETHEUS_MODULE_VERSION}`;
  const promtool = await ensureChecks(
    {
      name: `promtool-prometheus-${PROMETHEUS_MODULE_VERSION}`,
      requires: [prometheus],
      replaces: () => Promise.resolve([]),
      ldflags: '-s -w',
      tags: ['remove_all_sd'],
      tidy: false,
      packages: { promtool: 'github.com/prometheus/prometheus/cmd/promtool' },
    },
    log,
  );
  const source = await ourSource('dashboard-check');
  const dashboardCheck = await ensureChecks(
    {
      name: `dashboard-check-prometheus-${PROMETHEUS_MODULE_VERSION}-grafana-sdk-${GRAFANA_SDK_VERSION}-${shortHash(source)}`,
      requires: [prometheus, `github.com/grafana/grafana-foundation-sdk/go ${GRAFANA_SDK_VERSION}`],
      replaces: () => Promise.resolve([]),
      ldflags: '-s -w',
      tidy: false,
      sources: { 'dashboard-check/main.go': source },
      packages: { 'dashboard-check': `${GENERATED_MODULE}/dashboard-check` },
    },
    log,
  );
  return { promtool: promtool('promtool'), dashboardCheck: dashboardCheck('dashboard-check') };
}

/** olm-bundle-check: the operator-framework's bundle validators (github.com/operator-framework/api). */
export async function olmBundleCheck(log: (message: string) => void): Promise<string> {
  const source = await ourSource('olm-bundle-check');
  const bin = await ensureChecks(
    {
      name: `olm-checks-api-${OPERATOR_FRAMEWORK_API_VERSION}-${shortHash(source)}`,
      requires: [`github.com/operator-framework/api ${OPERATOR_FRAMEWORK_API_VERSION}`],
      replaces: () => Promise.resolve([]),
      ldflags: '-s -w',
      tidy: false,
      sources: { 'olm-bundle-check/main.go': source },
      packages: { 'olm-bundle-check': `${GENERATED_MODULE}/olm-bundle-check` },
    },
    log,
  );
  return bin('olm-bundle-check');
}
