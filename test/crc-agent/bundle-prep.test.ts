import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { ApiException, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { useWorld } from '../support/world.js';
import type { AgentOutput } from '../support/runners/agent-run.js';
import {
  failureLine,
  runAgentProcess,
  secretFragments,
  writeTempFile,
} from '../support/runners/agent-run.js';
import type { FileServer, TestBundle } from '../../dev/platform/bundles/test-bundle.js';
import {
  makeTestBundle,
  MARKER_OFFSETS,
  serveFolder,
  TEST_DISK_BYTES,
  writeChecksumFile,
} from '../../dev/platform/bundles/test-bundle.js';
import { clientNodeConfig, coreApi, objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'bundle-prep' });
const OTHER_DIGEST = 'ab'.repeat(32);
/** Listed in sha256sum.txt but not served. */
const UNPUBLISHED = 'crc_libvirt_9.9.9_amd64.crcbundle';

let served: string;
let server: FileServer;
let bundle: TestBundle;
let incomplete: TestBundle;
let bundleName: string;
let bundleUid: string;
let prepKubeconfig: string;
let dirs: { golden: string; scratch: string } | undefined;

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };

/** A ServiceAccount `name` with a Role of these rules in the namespace, as a kubeconfig. */
async function serviceAccountKubeconfig(name: string, rules: Rule[]): Promise<string> {
  const rbac = clientNodeConfig(ns.kubeConfig).makeApiClient(RbacAuthorizationV1Api);
  await rbac.createNamespacedRole({
    namespace: ns.name,
    body: { metadata: { name }, rules },
  });
  await coreApi(ns).createNamespacedServiceAccount({
    namespace: ns.name,
    body: { metadata: { name } },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns.name }],
    },
  });
  const token = await coreApi(ns).createNamespacedServiceAccountToken({
    namespace: ns.name,
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = ns.kubeConfig.getCurrentCluster();
  return writeTempFile(
    served,
    `${name}.kubeconfig`,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'mgmt',
          cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData },
        },
      ],
      users: [{ name, user: { token: token.status!.token } }],
      contexts: [{ name: 'mgmt', context: { cluster: 'mgmt', user: name } }],
      'current-context': 'mgmt',
    }),
  );
}

/**
 * A prep account that may create its outputs under any name (as operators before per-bundle
 * grants gave it): the agent still creates what is missing.
 */
const prepServiceAccountKubeconfig = (): Promise<string> =>
  serviceAccountKubeconfig('bundle-prep', [
    {
      apiGroups: [''],
      resources: ['secrets', 'configmaps'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    },
  ]);

beforeAll(async () => {
  served = await mkdtemp(path.join(os.tmpdir(), 'bundle-prep-served-'));
  bundle = await makeTestBundle(served, { version: '4.16.0', ocpVersion: '4.16.7' });
  incomplete = await makeTestBundle(served, { version: '4.16.1', omit: ['crc-bundle-info.json'] });
  await writeChecksumFile(served, 'sha256sum.txt', {
    'crc_vfkit_4.16.0_arm64.crcbundle': OTHER_DIGEST,
    [bundle.fileName]: bundle.archiveSha256,
    [incomplete.fileName]: incomplete.archiveSha256,
    [UNPUBLISHED]: OTHER_DIGEST,
  });
  await writeChecksumFile(served, 'sha256sum-wrong.txt', { [bundle.fileName]: OTHER_DIGEST });
  await writeChecksumFile(served, 'sha256sum-other.txt', { 'crc_hyperv.crcbundle': OTHER_DIGEST });
  server = await serveFolder(served);
  bundleName = `crc-4.16.0-${ns.name}`;
  const owner = await objectsApi(ns).create({
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'CRCBundle',
    metadata: { name: bundleName },
    spec: { version: '4.16.0' },
  } as KubernetesObject);
  bundleUid = owner.metadata!.uid!;
  prepKubeconfig = await prepServiceAccountKubeconfig();
});

afterAll(async () => {
  if (bundleName)
    await objectsApi(ns)
      .delete({
        apiVersion: 'guestcluster.opdev.io/v1alpha1',
        kind: 'CRCBundle',
        metadata: { name: bundleName },
      })
      .catch(() => undefined);
  await server?.close();
  if (served) await rm(served, { recursive: true, force: true });
});

afterEach(async () => {
  if (!dirs) return;
  await rm(path.dirname(dirs.golden), { recursive: true, force: true });
  dirs = undefined;
});

/** Fresh stand-ins for the golden and scratch PVC mounts. */
async function volumes(): Promise<{ golden: string; scratch: string }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'bundle-prep-'));
  dirs = { golden: path.join(root, 'golden'), scratch: path.join(root, 'work') };
  await mkdir(dirs.golden);
  await mkdir(dirs.scratch);
  return dirs;
}

/**
 * The prep Job's environment (docs/reference/agent-protocol.md#bundle-prep-inputs) for outputs
 * named `<prefix>-…`.
 */
function prepEnv(
  prefix: string,
  mounts: { golden: string; scratch: string },
  urls: { bundle?: string; sha256?: string } = {},
): Record<string, string> {
  return {
    BUNDLE_URL: `${server.baseUrl}/${urls.bundle ?? bundle.fileName}`,
    SHA256_URL: `${server.baseUrl}/${urls.sha256 ?? 'sha256sum.txt'}`,
    NAMESPACE: ns.name,
    BUNDLE_NAME: bundleName,
    BUNDLE_UID: bundleUid,
    SSH_SECRET_NAME: `${prefix}-ssh-key`,
    METADATA_CONFIGMAP_NAME: `${prefix}-metadata`,
    GOLDEN_DIR: mounts.golden,
    SCRATCH_DIR: mounts.scratch,
    KUBECONFIG: prepKubeconfig,
  };
}

const runPrep = (env: Record<string, string>): Promise<AgentOutput> =>
  runAgentProcess(env, ['bundle-prep']);

function expectNoKeyMaterial(run: AgentOutput, ...keys: string[]): void {
  const leaks = secretFragments(...keys).filter((fragment) => run.output.includes(fragment));
  expect(leaks).toEqual([]);
  expect(run.output).not.toMatch(/PRIVATE KEY/);
}

async function expectAbsent(kind: 'Secret' | 'ConfigMap', name: string): Promise<void> {
  const read =
    kind === 'Secret'
      ? coreApi(ns).readNamespacedSecret({ namespace: ns.name, name })
      : coreApi(ns).readNamespacedConfigMap({ namespace: ns.name, name });
  const error = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiException);
  expect((error as ApiException<unknown>).code).toBe(404);
}

/** The run published nothing and left no disk. */
async function expectNothingPublished(prefix: string, golden: string): Promise<void> {
  await expectAbsent('Secret', `${prefix}-ssh-key`);
  await expectAbsent('ConfigMap', `${prefix}-metadata`);
  expect(await readdir(golden)).toEqual([]);
}

const owner = (): object => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  name: bundleName,
  uid: bundleUid,
  controller: true,
});

describe('crc-agent bundle-prep', () => {
  test('publishes a raw disk.img, the SSH key Secret and the metadata ConfigMap', async () => {
    const mounts = await volumes();
    const run = await runPrep(prepEnv('good', mounts));
    expect(failureLine(run)).toBe('');
    expect(run.exitCode).toBe(0);

    const diskPath = path.join(mounts.golden, 'disk.img');
    const disk = await readFile(diskPath);
    expect(disk.length).toBe(TEST_DISK_BYTES);
    for (const offset of MARKER_OFFSETS)
      expect(disk.subarray(offset, offset + 4096)).toEqual(
        bundle.rawDisk.subarray(offset, offset + 4096),
      );
    const diskSha256 = createHash('sha256').update(disk).digest('hex');
    expect(diskSha256).toBe(bundle.rawSha256);
    expect(await readdir(mounts.golden)).toEqual(['disk.img']);
    // The archive and the extracted members (among them the key) are gone from scratch.
    expect(await readdir(mounts.scratch)).toEqual(['sha256sum.txt']);

    const labels = {
      'opdev.io/managed-by': 'guestcluster-operator',
      'opdev.io/crc-bundle': bundleName,
    };
    const secret = await coreApi(ns).readNamespacedSecret({
      namespace: ns.name,
      name: 'good-ssh-key',
    });
    expect(secret.type).toBe('Opaque');
    expect(Object.keys(secret.data ?? {})).toEqual(['id_ecdsa']);
    expect(Buffer.from(secret.data!.id_ecdsa!, 'base64').toString()).toBe(bundle.sshPrivateKey);
    expect(secret.metadata?.labels).toEqual(labels);
    expect(secret.metadata?.ownerReferences).toEqual([owner()]);

    const configMap = await coreApi(ns).readNamespacedConfigMap({
      namespace: ns.name,
      name: 'good-metadata',
    });
    expect(configMap.data).toEqual({
      ocpVersion: '4.16.7',
      sha256: bundle.archiveSha256,
      diskSHA256: bundle.rawSha256,
      diskVirtualSizeBytes: String(TEST_DISK_BYTES),
    });
    expect(configMap.metadata?.labels).toEqual(labels);
    expect(configMap.metadata?.ownerReferences).toEqual([owner()]);
    expect(run.logs.some((l) => l.msg?.startsWith(`Prepared bundle ${bundleName}`))).toBe(true);
    expectNoKeyMaterial(run, bundle.sshPrivateKey);

    // A retried pod (same volumes, outputs already there) succeeds and changes nothing.
    const again = await runPrep(prepEnv('good', mounts));
    expect(failureLine(again)).toBe('');
    expect(again.exitCode).toBe(0);
    expect(again.logs.filter((l) => l.outcome === 'unchanged')).toHaveLength(2);
    expect((await stat(diskPath)).size).toBe(TEST_DISK_BYTES);
  });

  test('publishes into the empty Secret and ConfigMap the operator made, with get and update on exactly those', async () => {
    // As the operator grants it per bundle (docs/reference/generated-objects.md#bundle-prep-job):
    // its two outputs, made empty and owned by the bundle, and no create.
    const ownerRef = { ...(owner() as V1OwnerReference), blockOwnerDeletion: true };
    const meta = (name: string) => ({
      name,
      labels: { 'opdev.io/managed-by': 'guestcluster-operator', 'opdev.io/crc-bundle': bundleName },
      ownerReferences: [ownerRef],
    });
    await coreApi(ns).createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: meta('granted-ssh-key'), type: 'Opaque' },
    });
    await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: meta('granted-metadata') },
    });
    const granted = await serviceAccountKubeconfig('granted-prep', [
      {
        apiGroups: [''],
        resources: ['secrets'],
        verbs: ['get', 'update'],
        resourceNames: ['granted-ssh-key'],
      },
      {
        apiGroups: [''],
        resources: ['configmaps'],
        verbs: ['get', 'update'],
        resourceNames: ['granted-metadata'],
      },
    ]);
    const mounts = await volumes();
    const run = await runPrep({ ...prepEnv('granted', mounts), KUBECONFIG: granted });
    expect(failureLine(run)).toBe('');
    expect(run.exitCode).toBe(0);
    const secret = await coreApi(ns).readNamespacedSecret({
      namespace: ns.name,
      name: 'granted-ssh-key',
    });
    expect(Buffer.from(secret.data!.id_ecdsa!, 'base64').toString()).toBe(bundle.sshPrivateKey);
    // The operator's owner reference stays as it made it (the account may not set
    // blockOwnerDeletion, and needs not).
    expect(secret.metadata?.ownerReferences).toEqual([ownerRef]);
    const configMap = await coreApi(ns).readNamespacedConfigMap({
      namespace: ns.name,
      name: 'granted-metadata',
    });
    expect(configMap.data).toMatchObject({ diskSHA256: bundle.rawSha256 });
    expect(configMap.metadata?.ownerReferences).toEqual([ownerRef]);
    expectNoKeyMaterial(run, bundle.sshPrivateKey);
  });

  test('a checksum mismatch exits 1 naming the file and both digests, and publishes nothing', async () => {
    const mounts = await volumes();
    const terminationLog = path.join(mounts.scratch, '..', 'termination-log');
    const run = await runPrep({
      ...prepEnv('mismatch', mounts, { sha256: 'sha256sum-wrong.txt' }),
      TERMINATION_MESSAGE_PATH: terminationLog,
    });
    expect(run.exitCode).toBe(1);
    const line = failureLine(run);
    expect(line).toContain('step Verify');
    expect(line).toContain(
      `checksum mismatch for ${bundle.fileName}: expected sha256 ${OTHER_DIGEST}, got ${bundle.archiveSha256}`,
    );
    expect(line).toContain('To fix: ');
    const termination = JSON.parse(await readFile(terminationLog, 'utf8')) as {
      step: string;
      message: string;
    };
    expect(termination.step).toBe('Verify');
    expect(termination.message).toContain(bundle.archiveSha256);
    await expectNothingPublished('mismatch', mounts.golden);
    expect(await readdir(mounts.scratch)).toEqual(['sha256sum.txt']);
  });

  test('a bundle without crc-bundle-info.json fails naming the member', async () => {
    const mounts = await volumes();
    const run = await runPrep(prepEnv('incomplete', mounts, { bundle: incomplete.fileName }));
    expect(run.exitCode).toBe(1);
    const line = failureLine(run);
    expect(line).toContain('step Extract');
    expect(line).toContain(`the bundle has no member ${incomplete.bundleDir}/crc-bundle-info.json`);
    await expectNothingPublished('incomplete', mounts.golden);
    expectNoKeyMaterial(run, incomplete.sshPrivateKey);
  });

  test('a checksum file without the bundle fails before the bundle is downloaded', async () => {
    const mounts = await volumes();
    const before = server.requests.length;
    const run = await runPrep(prepEnv('noentry', mounts, { sha256: 'sha256sum-other.txt' }));
    expect(run.exitCode).toBe(1);
    expect(failureLine(run)).toContain(
      `no checksum entry found for ${bundle.fileName} in ${server.baseUrl}/sha256sum-other.txt`,
    );
    expect(server.requests.slice(before)).toEqual(['/sha256sum-other.txt']);
    await expectNothingPublished('noentry', mounts.golden);
  });

  test('an HTTP error names the URL and the status', async () => {
    const mounts = await volumes();
    const run = await runPrep(prepEnv('gone', mounts, { bundle: UNPUBLISHED }));
    expect(run.exitCode).toBe(1);
    expect(failureLine(run)).toContain(
      `step Download: GET ${server.baseUrl}/${UNPUBLISHED} answered 404`,
    );
    const missingSums = await runPrep(prepEnv('gone', mounts, { sha256: 'missing.txt' }));
    expect(missingSums.exitCode).toBe(1);
    expect(failureLine(missingSums)).toContain(
      `step Download: GET ${server.baseUrl}/missing.txt answered 404`,
    );
    await expectNothingPublished('gone', mounts.golden);
  });

  test('an existing Secret controlled by another object is left alone', async () => {
    const mounts = await volumes();
    const account = await coreApi(ns).readNamespacedServiceAccount({
      namespace: ns.name,
      name: 'bundle-prep',
    });
    const foreign = {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      name: 'bundle-prep',
      uid: account.metadata!.uid!,
      controller: true,
    };
    await coreApi(ns).createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: { name: 'taken-ssh-key', ownerReferences: [foreign] },
        data: { id_ecdsa: Buffer.from('other').toString('base64') },
      },
    });
    const run = await runPrep(prepEnv('taken', mounts));
    expect(run.exitCode).toBe(1);
    expect(failureLine(run)).toContain(
      `step Publish: ${ns.name}/taken-ssh-key is controlled by ServiceAccount bundle-prep, not by CRCBundle ${bundleName}`,
    );
    const secret = await coreApi(ns).readNamespacedSecret({
      namespace: ns.name,
      name: 'taken-ssh-key',
    });
    expect(Buffer.from(secret.data!.id_ecdsa!, 'base64').toString()).toBe('other');
    expect(secret.metadata?.ownerReferences).toEqual([foreign]);
    await expectAbsent('ConfigMap', 'taken-metadata');
    expectNoKeyMaterial(run, bundle.sshPrivateKey);
  });

  test('missing configuration names every missing variable', async () => {
    const mounts = await volumes();
    const env = prepEnv('config', mounts);
    delete env.BUNDLE_UID;
    delete env.SHA256_URL;
    const run = await runPrep(env);
    expect(run.exitCode).toBe(1);
    expect(failureLine(run)).toContain(
      'missing required configuration: SHA256_URL, BUNDLE_UID must be set',
    );
    await expectNothingPublished('config', mounts.golden);
  });
});
