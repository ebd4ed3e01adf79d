import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiException } from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'api' });
const samplesDir = path.join(projectRoot(), 'samples');
const CLUSTER_SCOPED = new Set(['Namespace', 'CRCBundle', 'VersionStream', 'CIAccessPolicy']);

/** Moves a namespaced object into the test namespace; references inside specs stay as written. */
function intoTestNamespace<T extends KubernetesObject>(object: T): T {
  if (CLUSTER_SCOPED.has(object.kind!)) return object;
  return { ...object, metadata: { ...object.metadata, namespace: ns.name } };
}

async function readSamples(): Promise<{ file: string; object: KubernetesObject }[]> {
  const files = (await readdir(samplesDir)).filter((file) => file.endsWith('.yaml')).sort();
  const samples = [];
  for (const file of files) {
    for (const document of parseAllDocuments(await readFile(path.join(samplesDir, file), 'utf8'))) {
      const object = document.toJS() as KubernetesObject | null;
      if (object) samples.push({ file, object });
    }
  }
  return samples;
}

function apiMessage(error: unknown): string {
  if (!(error instanceof ApiException))
    throw new Error(`expected the apiserver to refuse, got ${String(error)}`);
  return (JSON.parse(String(error.body)) as { message: string }).message;
}

interface InvalidCase {
  name: string;
  object: KubernetesObject;
  update?: KubernetesObject;
  expectedMessage: string;
}

const invalidCases = parse(
  await readFile(path.join(projectRoot(), 'test', 'api', 'invalid-objects.yaml'), 'utf8'),
) as InvalidCase[];

describe('the guestcluster API', () => {
  const created: KubernetesObject[] = [];
  afterAll(async () => {
    // Cluster-scoped objects outlive the test namespace.
    for (const object of created)
      await objectsApi(ns)
        .delete(object)
        .catch(() => undefined);
  });

  it('accepts every sample (server-side dry-run apply)', async () => {
    const samples = await readSamples();
    expect(samples.map((s) => s.object.kind)).toEqual(
      expect.arrayContaining([
        'ClusterPool',
        'ClusterInstance',
        'ClusterLease',
        'CRCBundle',
        'VersionStream',
        'CIAccessPolicy',
        'Namespace',
        'Secret',
      ]),
    );
    const manifest = samples.map((s) => stringify(intoTestNamespace(s.object))).join('---\n');
    const { stdout } = await kubectl(
      ['apply', '--server-side', '--dry-run=server', '-f', '-'],
      manifest,
    );
    expect(stdout.trim().split('\n')).toHaveLength(samples.length);
  });

  it('accepts a pinned stream and defaults its channel group and arch', async () => {
    const stream = {
      apiVersion: 'guestcluster.opdev.io/v1alpha1',
      kind: 'VersionStream',
      metadata: { name: 'api-pinned-stream' },
      spec: { minor: '4.19', pin: '4.19.0-rc.3' },
    };
    const accepted = await objectsApi(ns).create<typeof stream>(stream);
    created.push(accepted);
    expect(accepted.spec).toEqual({
      minor: '4.19',
      pin: '4.19.0-rc.3',
      channelGroup: 'stable',
      arch: 'amd64',
    });
  });

  it('has a table of at least 25 invalid objects', () => {
    expect(invalidCases.length).toBeGreaterThanOrEqual(25);
    expect(new Set(invalidCases.map((c) => c.name)).size).toBe(invalidCases.length);
  });

  it.each(invalidCases.map((c) => [c.name, c] as const))('rejects %s', async (_name, invalid) => {
    if (!invalid.update) {
      const error = await objectsApi(ns)
        .create(intoTestNamespace(invalid.object), undefined, 'All')
        .catch((e: unknown) => e);
      expect(apiMessage(error)).toContain(invalid.expectedMessage);
      return;
    }
    const original = await objectsApi(ns).create(intoTestNamespace(invalid.object));
    created.push(original);
    const error = await objectsApi(ns)
      .replace(
        intoTestNamespace({
          ...invalid.update,
          metadata: {
            ...invalid.update.metadata,
            resourceVersion: original.metadata!.resourceVersion,
          },
        }),
        undefined,
        'All',
      )
      .catch((e: unknown) => e);
    expect(apiMessage(error)).toContain(invalid.expectedMessage);
  });
});

describe('ClusterLease status', () => {
  it.each(['Releasing', 'Released'])(
    'refuses the legacy phase %s, which nothing writes',
    async (phase) => {
      const name = `legacy-${phase.toLowerCase()}`;
      await objectsApi(ns).create({
        apiVersion: 'guestcluster.opdev.io/v1alpha1',
        kind: 'ClusterLease',
        metadata: { name, namespace: ns.name },
        spec: { poolRef: { name: 'pool' } },
      } as KubernetesObject);
      const patch = JSON.stringify({ status: { phase } });
      const refused = kubectl([
        ...['patch', 'clusterlease', name, '-n', ns.name, '--subresource=status'],
        ...['--type=merge', '-p', patch],
      ]);
      await expect(refused).rejects.toThrow(`status.phase: Unsupported value: "${phase}"`);
    },
  );
});

/**
 * Header and first row of `kubectl get`. Cells are cut at the header's column positions, because
 * kubectl leaves an empty value blank.
 */
async function table(
  resource: string,
  name: string,
  namespaced: boolean,
): Promise<{ headers: string[]; row: string[] }> {
  const { stdout } = await kubectl([
    'get',
    copied(resource),
    name,
    ...(namespaced ? ['-n', ns.name] : []),
  ]);
  const [header, row] = stdout.trimEnd().split('\n') as [string, string];
  const starts = [...header.matchAll(/\S+/g)].map((match) => match.index);
  const cells = starts.map((start, i) => row.slice(start, starts[i + 1]).trim());
  return { headers: header.trim().split(/\s+/), row: cells };
}

async function applyWithStatus(object: KubernetesObject, status: object): Promise<void> {
  await kubectl(['apply', '-f', '-'], stringify(object));
  const namespace = CLUSTER_SCOPED.has(object.kind!) ? [] : ['-n', ns.name];
  await kubectl([
    'patch',
    copied(object.kind!.toLowerCase()),
    object.metadata!.name!,
    ...namespace,
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  ]);
}

/**
 * The printer columns are read from copies of our CRDs in a group of their own: the controllers
 * that other test files run at the same time watch the real group and would rewrite the status
 * these tests set.
 */
const COPY_GROUP = 'printer-columns.test.opdev.io';
const copied = (resource: string): string => `${resource}.${COPY_GROUP}`;

async function installCrdCopies(): Promise<string[]> {
  const dir = path.join(projectRoot(), 'crds');
  const names: string[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.yaml'))) {
    const crd = parse(await readFile(path.join(dir, file), 'utf8')) as {
      kind: string;
      metadata: { name: string };
      spec: { group: string; names: { plural: string } };
    };
    if (crd.kind !== 'CustomResourceDefinition') continue;
    crd.spec.group = COPY_GROUP;
    crd.metadata.name = copied(crd.spec.names.plural);
    await kubectl(['apply', '-f', '-'], stringify(crd));
    names.push(crd.metadata.name);
  }
  await kubectl(['wait', '--for=condition=Established', ...names.map((n) => `crd/${n}`)]);
  return names;
}

describe('kubectl get', () => {
  const crdCopies = installCrdCopies();
  const samples = Promise.all([readSamples(), crdCopies]).then(
    ([all]) =>
      new Map(
        all.map(({ file, object }) => [
          file,
          intoTestNamespace({
            ...object,
            apiVersion: object.apiVersion!.replace('guestcluster.opdev.io', COPY_GROUP),
          }),
        ]),
      ),
  );
  afterAll(async () => {
    await kubectl(['delete', 'crd', ...(await crdCopies), '--ignore-not-found']);
  });

  it('shows a lease with its phase, pool, instance, version, topology and queue position', async () => {
    const lease = (await samples).get('clusterlease.yaml')!;
    await applyWithStatus(lease, {
      phase: 'Bound',
      instanceRef: { name: 'crc-pool-abcde' },
      ocpVersion: '4.16.0',
      topology: 'crc',
    });
    const { headers, row } = await table('clusterleases', lease.metadata!.name!, true);
    expect(headers).toEqual([
      'NAME',
      'PHASE',
      'POOL',
      'INSTANCE',
      'VERSION',
      'TOPOLOGY',
      'QUEUE',
      'AGE',
    ]);
    expect(row.slice(0, 7)).toEqual([
      lease.metadata!.name,
      'Bound',
      'crc-pool',
      'crc-pool-abcde',
      '4.16.0',
      'crc',
      '',
    ]);
  });

  it('shows a pool with its sizes, counts, capacity and version', async () => {
    const pool = (await samples).get('clusterpool-crc-version.yaml')!;
    await applyWithStatus(pool, {
      totalInstances: 3,
      terminatingInstances: 0,
      availableInstances: 2,
      leasedInstances: 1,
      version: '4.16.0',
      conditions: [
        {
          type: 'CapacityAvailable',
          status: 'True',
          reason: 'ReadyInstanceAvailable',
          message: '2 Ready',
          lastTransitionTime: new Date().toISOString(),
        },
      ],
    });
    const { headers, row } = await table('clusterpools', pool.metadata!.name!, true);
    expect(headers).toEqual([
      'NAME',
      'TYPE',
      'MIN',
      'MAX',
      'WARM',
      'SPARES',
      'TOTAL',
      'TERMINATING',
      'AVAILABLE',
      'LEASED',
      'CAPACITY',
      'VERSION',
      'AGE',
    ]);
    // No spec.autoscaling nor spec.schedule: no desired spares beside the constant warmSpares.
    expect(row.slice(0, 12)).toEqual([
      'crc-pool',
      'crc',
      '1',
      '4',
      '2',
      '',
      '3',
      '0',
      '2',
      '1',
      'ReadyInstanceAvailable',
      '4.16.0',
    ]);
  });

  it('shows an instance with its type, phase, version, topology and lease', async () => {
    const instance = (await samples).get('clusterinstance-standalone.yaml')!;
    await applyWithStatus(instance, {
      phase: 'Ready',
      ocpVersion: '4.16.0',
      topology: 'crc',
      leaseRef: { name: 'ci-job-1234-lease' },
    });
    const { headers, row } = await table('clusterinstances', instance.metadata!.name!, true);
    expect(headers).toEqual(['NAME', 'TYPE', 'PHASE', 'VERSION', 'TOPOLOGY', 'LEASE', 'AGE']);
    expect(row.slice(1, 6)).toEqual(['crc', 'Ready', '4.16.0', 'crc', 'ci-job-1234-lease']);
  });

  it('shows a stream with its minor, channel, version and reason, and its pin when wide', async () => {
    const stream = (await samples).get('versionstream.yaml')!;
    await applyWithStatus(
      {
        ...stream,
        spec: { minor: '4.19', channelGroup: 'stable', pin: '4.19.7' },
      } as KubernetesObject,
      {
        resolvedVersion: '4.19.7',
        conditions: [
          {
            type: 'Resolved',
            status: 'True',
            reason: 'Resolved',
            message: 'pinned',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    );
    const { headers, row } = await table('versionstreams', stream.metadata!.name!, false);
    expect(headers).toEqual(['NAME', 'MINOR', 'CHANNEL', 'VERSION', 'RESOLVED', 'AGE']);
    expect(row.slice(0, 5)).toEqual(['ocp-4.19', '4.19', 'stable', '4.19.7', 'Resolved']);
    const { stdout } = await kubectl(['get', copied('versionstreams'), 'ocp-4.19', '-o', 'wide']);
    expect(stdout.split('\n')[0]!.trim().split(/\s+/)).toEqual([
      'NAME',
      'MINOR',
      'CHANNEL',
      'VERSION',
      'PIN',
      'RESOLVED',
      'AGE',
    ]);
    expect(stdout).toContain('4.19.7');
  });

  it('shows a bundle with its version, arch, phase and release version', async () => {
    const bundle = (await samples).get('crcbundle-download.yaml')!;
    await applyWithStatus(bundle, { phase: 'Ready', ocpVersion: '4.16.0' });
    const { headers, row } = await table('crcbundles', bundle.metadata!.name!, false);
    expect(headers).toEqual([
      'NAME',
      'VERSION',
      'ARCH',
      'PROFILE',
      'PHASE',
      'STAGE',
      'OCPVERSION',
      'REASON',
      'AGE',
    ]);
    // A download has no build profile and no build stage.
    expect(row.slice(0, 8)).toEqual([
      'crc-4.16.0-amd64',
      '4.16.0',
      'amd64',
      '',
      'Ready',
      '',
      '4.16.0',
      '',
    ]);
  });
});
