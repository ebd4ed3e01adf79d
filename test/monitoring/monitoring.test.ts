import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { MonitoringChecks } from '../../dev/checks/go-checks.js';
import { monitoringChecks } from '../../dev/checks/go-checks.js';
import { MONITORING_CRDS } from '../../dev/checks/monitoring-crds.js';
import { installCrds } from '../../dev/control-plane/install-crds.js';
import { cachedCrds } from '../../dev/control-plane/platform-crds/crd-cache.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { CommandFailedError, runCommand } from '../../dev/control-plane/run-command.js';
import { adminKubeConfig } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';

const ROOT = projectRoot();
const MONITORING_DIR = path.join(ROOT, 'operator', 'monitoring');
const DASHBOARD = path.join(MONITORING_DIR, 'guestcluster-dashboard.json');
/** The metrics the operator exports (docs/monitoring.md); alerts and dashboard use these only. */
const EXPORTED_METRICS = [
  'guestcluster_pool_instances',
  'guestcluster_pool_pending_leases',
  'guestcluster_pool_capacity',
  'guestcluster_pool_stale_instances',
  'guestcluster_pool_desired_spares',
  'guestcluster_lease_wait_seconds',
  'guestcluster_instance_provisioning_seconds',
  'guestcluster_lease_release_seconds',
  'guestcluster_instance_teardown_seconds',
  'guestcluster_instance_failures_total',
  'guestcluster_bundle_failures_total',
  'guestcluster_version_stream_resolution_errors_total',
  'guestcluster_leader',
  'guestcluster_reconcile_errors_total',
];

interface AlertRule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}
interface RuleGroup {
  name: string;
  rules: AlertRule[];
}
interface AlertTest {
  alert_rule_test: { alertname: string; exp_alerts: unknown[] }[];
}

/** The metric names an expression reads, histogram series folded into their histogram. */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bguestcluster_[a-z_]+/g)].map((m) =>
    m[0].replace(/_(bucket|count|sum)$/, ''),
  );
}

/** Runs a checker; resolves with its output whatever its exit status. */
async function run(command: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await runCommand(command, args);
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    if (!(error instanceof CommandFailedError)) throw error;
    return { ok: false, output: error.message };
  }
}

let checks: MonitoringChecks;
let work: string;
let groups: RuleGroup[];
beforeAll(async () => {
  // A first run builds promtool and dashboard-check (minutes; cached under ~/.cache/guestcluster
  // by version, like the control plane). Later runs find them.
  checks = await monitoringChecks((line) => process.stdout.write(`${line}\n`));
  work = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-monitoring-'));
  const rule = parse(await readFile(path.join(MONITORING_DIR, 'prometheus-rule.yaml'), 'utf8')) as {
    spec: { groups: RuleGroup[] };
  };
  groups = rule.spec.groups;
  // promtool reads Prometheus rule files: the PrometheusRule's spec is one.
  await writeFile(path.join(work, 'rules.yaml'), stringify({ groups }));
}, 30 * 60_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const alerts = (): AlertRule[] => groups.flatMap((group) => group.rules);

describe('the PrometheusRule (operator/monitoring)', () => {
  it("passes Prometheus' rule checker (promtool check rules)", async () => {
    const result = await run(checks.promtool, ['check', 'rules', path.join(work, 'rules.yaml')]);
    expect(result.output).toContain(`SUCCESS: ${alerts().length} rules found`);
    expect(result.ok).toBe(true);
  });

  it('is refused by promtool when an expression is broken', async () => {
    const broken = structuredClone(groups);
    broken[0]!.rules[0]!.expr = 'max by (namespace (guestcluster_pool_pending_leases)';
    await writeFile(path.join(work, 'broken.yaml'), stringify({ groups: broken }));
    const result = await run(checks.promtool, ['check', 'rules', path.join(work, 'broken.yaml')]);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/FAILED/);
  });

  it('fires each alert on its synthetic series and stays quiet otherwise (promtool test rules)', async () => {
    const tests = await readFile(path.join(ROOT, 'test', 'monitoring', 'alert-tests.yaml'), 'utf8');
    // Every alert has a case where it fires and one where it must not.
    const cases = (parse(tests) as { tests: AlertTest[] }).tests.flatMap((t) => t.alert_rule_test);
    for (const { alert } of alerts()) {
      const own = cases.filter((c) => c.alertname === alert);
      expect({ alert, fires: own.some((c) => c.exp_alerts.length > 0) }).toEqual({
        alert,
        fires: true,
      });
      expect({ alert, quiet: own.some((c) => c.exp_alerts.length === 0) }).toEqual({
        alert,
        quiet: true,
      });
    }
    await writeFile(path.join(work, 'alert-tests.yaml'), tests);
    const result = await run(checks.promtool, [
      'test',
      'rules',
      path.join(work, 'alert-tests.yaml'),
    ]);
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('reads only the metrics the operator exports', () => {
    for (const { alert, expr } of alerts())
      for (const metric of metricsIn(expr))
        expect({ alert, metric, exported: EXPORTED_METRICS.includes(metric) }).toEqual({
          alert,
          metric,
          exported: true,
        });
  });

  it('links every alert to its section of docs/runbooks.md', async () => {
    const runbooks = await readFile(path.join(ROOT, 'docs', 'runbooks.md'), 'utf8');
    const anchors = [...runbooks.matchAll(/^## (\S+)$/gm)].map((m) => m[1]!.toLowerCase());
    for (const { alert, annotations } of alerts())
      expect(annotations.runbook_url).toBe(
        `https://github.com/guestcluster/lease/blob/main/docs/runbooks.md#${alert.toLowerCase()}`,
      );
    expect(anchors).toEqual(alerts().map(({ alert }) => alert.toLowerCase()));
  });
});

describe('the Grafana dashboard (operator/monitoring)', () => {
  it("loads with Grafana's dashboard schema and its queries parse as PromQL", async () => {
    const result = await run(checks.dashboardCheck, [DASHBOARD]);
    expect(result.output).toMatch(/guestcluster-dashboard\.json: \d+ panels, \d+ queries: valid/);
    expect(result.ok).toBe(true);
  });

  it('is refused with an unknown field or a broken query', async () => {
    const board = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const unknownField = path.join(work, 'unknown-field.json');
    await writeFile(unknownField, JSON.stringify({ ...board, refreshEvery: '1m' }));
    const brokenQuery = path.join(work, 'broken-query.json');
    const broken = structuredClone(board);
    broken.panels.find((p) => p.targets)!.targets![0]!.expr =
      'sum by (state (guestcluster_pool_instances)';
    await writeFile(brokenQuery, JSON.stringify(broken));

    const unknown = await run(checks.dashboardCheck, [unknownField]);
    expect(unknown.ok).toBe(false);
    expect(unknown.output).toMatch(/refreshEvery/);
    const query = await run(checks.dashboardCheck, [brokenQuery]);
    expect(query.ok).toBe(false);
    expect(query.output).toMatch(/target 0: .*parse error/);
  });

  it('shows pool sizes, lease waits, provisioning and teardown times and failures', async () => {
    const board = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const used = new Set(
      board.panels.flatMap((p) => p.targets ?? []).flatMap((t) => metricsIn(t.expr)),
    );
    for (const metric of used) expect(EXPORTED_METRICS).toContain(metric);
    expect([...used].sort()).toEqual(
      expect.arrayContaining([
        'guestcluster_bundle_failures_total',
        'guestcluster_instance_failures_total',
        'guestcluster_instance_provisioning_seconds',
        'guestcluster_instance_teardown_seconds',
        'guestcluster_lease_wait_seconds',
        'guestcluster_pool_instances',
        'guestcluster_pool_pending_leases',
      ]),
    );
  });
});

describe('the monitoring kustomization (operator/monitoring)', () => {
  it("is accepted by the apiserver with the Prometheus Operator's real CRDs (server-side dry run)", async () => {
    await installCrds(adminKubeConfig(), await cachedCrds(MONITORING_CRDS));
    await kubectl(['apply', '-f', path.join(ROOT, 'operator', 'deploy', 'namespace.yaml')]);
    const { stdout: rendered } = await kubectl(['kustomize', MONITORING_DIR]);
    const kinds = parseAllDocuments(rendered).map((d) => (d.toJS() as { kind: string }).kind);
    expect(kinds.sort()).toEqual([
      'ClusterRoleBinding',
      'ConfigMap',
      'ConfigMap',
      'PrometheusRule',
      'Secret',
      'ServiceAccount',
      'ServiceMonitor',
    ]);
    const { stdout } = await kubectl(['apply', '--dry-run=server', '-k', MONITORING_DIR]);
    expect(stdout.trim().split('\n')).toHaveLength(kinds.length);
  });

  it("scrapes operator/deploy's metrics Service by a port it has, under the name its certificate carries", async () => {
    const { stdout } = await kubectl(['kustomize', path.join(ROOT, 'operator', 'deploy')]);
    const services = parseAllDocuments(stdout)
      .map(
        (d) =>
          d.toJS() as {
            kind: string;
            metadata: { name: string; namespace: string; labels?: Record<string, string> };
            spec: { ports: { name: string }[] };
          },
      )
      .filter((m) => m.kind === 'Service');
    const monitor = parse(
      await readFile(path.join(MONITORING_DIR, 'service-monitor.yaml'), 'utf8'),
    ) as {
      spec: {
        selector: { matchLabels: Record<string, string> };
        endpoints: { port: string; scheme: string; tlsConfig: { serverName: string } }[];
      };
    };
    const selected = services.filter((service) =>
      Object.entries(monitor.spec.selector.matchLabels).every(
        ([key, value]) => service.metadata.labels?.[key] === value,
      ),
    );
    expect(selected.map((service) => service.metadata.name)).toEqual([
      'guestcluster-operator-metrics',
    ]);
    const [service] = selected;
    for (const endpoint of monitor.spec.endpoints) {
      expect(service!.spec.ports.map((port) => port.name)).toContain(endpoint.port);
      expect(endpoint.scheme).toBe('https');
      expect(endpoint.tlsConfig.serverName).toBe(
        `${service!.metadata.name}.${service!.metadata.namespace}.svc`,
      );
    }
  });

  it('keeps operator/deploy free of monitoring.coreos.com kinds', async () => {
    const { stdout } = await kubectl(['kustomize', path.join(ROOT, 'operator', 'deploy')]);
    expect(stdout).not.toContain('monitoring.coreos.com');
  });
});
