import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { olmBundleCheck } from '../../dev/checks/go-checks.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { CommandFailedError, runCommand } from '../../dev/control-plane/run-command.js';
import { bundleFiles } from '../../dev/olm/bundle-files.js';
import { kubectl } from '../support/kubectl.js';

const ROOT = projectRoot();
const BUNDLE_DIR = path.join(ROOT, 'bundle');
const CSV_FILE = path.join(
  BUNDLE_DIR,
  'manifests',
  'guestcluster-operator.clusterserviceversion.yaml',
);
const OPERATOR_NAMESPACE = 'guestcluster-operator-system';
/** OpenShift 4.19's Kubernetes: APIs it removed would be errors. */
const K8S_VERSION = '1.32';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
  spec?: Record<string, unknown>;
}
interface Csv {
  spec: {
    install: {
      spec: {
        permissions: { serviceAccountName: string; rules: Rule[] }[];
        clusterPermissions: { serviceAccountName: string; rules: Rule[] }[];
        deployments: { name: string; spec: unknown }[];
      };
    };
    customresourcedefinitions: {
      owned: {
        name: string;
        kind: string;
        version: string;
        specDescriptors?: { path: string }[];
        statusDescriptors?: { path: string }[];
      }[];
    };
    installModes: { type: string; supported: boolean }[];
  };
}

/** Each rule as one string per (group, resource, verb, name), so that splits and orders compare equal. */
function grants(rules: readonly Rule[]): string[] {
  const out = new Set<string>();
  for (const rule of rules) {
    const targets = rule.nonResourceURLs
      ? rule.nonResourceURLs.map((url) => `url ${url}`)
      : (rule.apiGroups ?? []).flatMap((group) =>
          (rule.resources ?? []).flatMap((resource) =>
            (rule.resourceNames ?? ['*']).map((name) => `${group}/${resource}/${name}`),
          ),
        );
    for (const target of targets) for (const verb of rule.verbs) out.add(`${target} ${verb}`);
  }
  return [...out].sort();
}

/** Runs the checker; resolves with its output whatever its exit status. */
async function check(bundle: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await runCommand(checker, [bundle, K8S_VERSION]);
    return { ok: true, output: stdout };
  } catch (error) {
    if (!(error instanceof CommandFailedError)) throw error;
    return { ok: false, output: error.message };
  }
}

let checker: string;
let deploy: Manifest[];
let csv: Csv;
let work: string;
beforeAll(async () => {
  // A first run builds the checker (a minute or more; cached under ~/.cache/guestcluster).
  checker = await olmBundleCheck((line) => process.stdout.write(`${line}\n`));
  const { stdout } = await kubectl(['kustomize', path.join(ROOT, 'operator', 'deploy')]);
  deploy = parseAllDocuments(stdout).map((d) => d.toJS() as Manifest);
  csv = parse(await readFile(CSV_FILE, 'utf8')) as Csv;
  work = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-olm-'));
}, 30 * 60_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the OLM bundle (bundle/)', () => {
  it("is what 'npm run generate:bundle' writes from operator/deploy, crds/ and operator/olm", async () => {
    const expected = await bundleFiles(ROOT);
    const committed = new Map<string, string>();
    for (const entry of await readdir(BUNDLE_DIR, { recursive: true, withFileTypes: true }))
      if (entry.isFile()) {
        const file = path.relative(BUNDLE_DIR, path.join(entry.parentPath, entry.name));
        committed.set(file, await readFile(path.join(BUNDLE_DIR, file), 'utf8'));
      }
    expect([...committed.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [file, content] of expected)
      expect({ file, content: committed.get(file) }).toEqual({ file, content });
  });

  it("passes the operator-framework's bundle validators", async () => {
    const result = await check(BUNDLE_DIR);
    // Neither errors nor warnings (good practices, OperatorHub's metadata, channel naming).
    expect(result.output.split('\n').filter((line) => /^(error|warning)/.test(line))).toEqual([]);
    expect(result.output).toContain('guestcluster-operator.v0.1.0: valid');
    expect(result.ok).toBe(true);
  });

  it('is refused by the validators when its CSV is broken', async () => {
    const broken = path.join(work, 'broken');
    await cp(BUNDLE_DIR, broken, { recursive: true });
    const file = path.join(broken, 'manifests', path.basename(CSV_FILE));
    const object = parse(await readFile(file, 'utf8')) as Csv;
    object.spec.customresourcedefinitions.owned[0]!.version = 'v9';
    await writeFile(file, stringify(object));
    const result = await check(broken);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/error: .*v9/);
  });

  it('grants in its CSV exactly what operator/deploy grants each of its ServiceAccounts', () => {
    const accounts = deploy.filter((m) => m.kind === 'ServiceAccount').map((m) => m.metadata.name);
    const role = (kind: string, name: string, namespace?: string): Manifest =>
      deploy.find(
        (m) =>
          m.kind === kind &&
          m.metadata.name === name &&
          (kind === 'ClusterRole' || m.metadata.namespace === namespace),
      )!;
    const fromDeploy = (bindingKind: string): Record<string, string[]> => {
      const byAccount: Record<string, Rule[]> = {};
      for (const binding of deploy.filter((m) => m.kind === bindingKind))
        for (const subject of binding.subjects ?? []) {
          const own =
            subject.kind === 'ServiceAccount' &&
            subject.namespace === OPERATOR_NAMESPACE &&
            accounts.includes(subject.name);
          if (!own) continue;
          const { rules } = role(
            binding.roleRef!.kind,
            binding.roleRef!.name,
            binding.metadata.namespace,
          );
          byAccount[subject.name] = [...(byAccount[subject.name] ?? []), ...rules!];
        }
      return Object.fromEntries(
        Object.entries(byAccount).map(([account, rules]) => [account, grants(rules)]),
      );
    };
    const fromCsv = (
      entries: { serviceAccountName: string; rules: Rule[] }[],
    ): Record<string, string[]> =>
      Object.fromEntries(
        entries
          .filter((e) => e.rules.length > 0)
          .map((e) => [e.serviceAccountName, grants(e.rules)]),
      );

    const install = csv.spec.install.spec;
    expect(fromCsv(install.clusterPermissions)).toEqual(fromDeploy('ClusterRoleBinding'));
    expect(fromCsv(install.permissions)).toEqual(fromDeploy('RoleBinding'));
    // OLM creates every account the CSV names, and only those.
    expect(
      [
        ...new Set(
          [...install.permissions, ...install.clusterPermissions].map((e) => e.serviceAccountName),
        ),
      ].sort(),
    ).toEqual(accounts.sort());
  });

  it('carries the roles operator/deploy binds to nobody of its own as they are', async () => {
    const bound = new Set(
      deploy
        .filter((m) => ['RoleBinding', 'ClusterRoleBinding'].includes(m.kind))
        .map((m) => `${m.roleRef!.kind}/${m.roleRef!.name}`),
    );
    const files = await readdir(path.join(BUNDLE_DIR, 'manifests'));
    for (const clusterRole of deploy.filter(
      (m) => m.kind === 'ClusterRole' && !bound.has(`ClusterRole/${m.metadata.name}`),
    )) {
      const file = files.find((f) => f.startsWith(`${clusterRole.metadata.name}_`))!;
      const carried = parse(
        await readFile(path.join(BUNDLE_DIR, 'manifests', file), 'utf8'),
      ) as Manifest;
      expect(carried).toEqual(clusterRole);
    }
  });

  it("installs operator/deploy's Deployment in all namespaces mode", () => {
    const deployment = deploy.find((m) => m.kind === 'Deployment')!;
    expect(csv.spec.install.spec.deployments).toEqual([
      { name: deployment.metadata.name, label: expect.any(Object), spec: deployment.spec },
    ]);
    expect(csv.spec.installModes.filter((m) => m.supported).map((m) => m.type)).toEqual([
      'AllNamespaces',
    ]);
  });

  it('owns the five CRDs, with descriptors of fields their schemas have', () => {
    const crds = deploy.filter((m) => m.kind === 'CustomResourceDefinition') as unknown as {
      metadata: { name: string };
      spec: {
        names: { kind: string };
        versions: {
          name: string;
          storage: boolean;
          schema: {
            openAPIV3Schema: {
              properties: Record<string, { properties?: Record<string, unknown> }>;
            };
          };
        }[];
      };
    }[];
    const owned = csv.spec.customresourcedefinitions.owned;
    expect(owned.map((o) => o.name).sort()).toEqual(crds.map((c) => c.metadata.name).sort());
    for (const entry of owned) {
      const crd = crds.find((c) => c.metadata.name === entry.name)!;
      const version = crd.spec.versions.find((v) => v.storage)!;
      expect({ kind: entry.kind, version: entry.version }).toEqual({
        kind: crd.spec.names.kind,
        version: version.name,
      });
      const fields = version.schema.openAPIV3Schema.properties;
      expect(entry.specDescriptors!.map((d) => d.path.split('.')[0]).sort()).toEqual(
        Object.keys(fields.spec!.properties!).sort(),
      );
      expect((entry.statusDescriptors ?? []).map((d) => d.path.split('.')[0]).sort()).toEqual(
        Object.keys(fields.status?.properties ?? {}).sort(),
      );
    }
  });
});
