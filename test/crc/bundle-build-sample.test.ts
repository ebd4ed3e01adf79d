import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { CONFIG_MAPS } from '../../client/api/core-resources.js';
import type { ClusterInstance, ClusterPool, CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES, NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Secret } from '../../operator/kube/workloads.js';
import { simulatedBuilds } from '../../dev/platform/simulated-platform.js';
import { SIMULATED_RELEASE } from '../../dev/platform/build/simulated-build-tools.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import {
  condition,
  createBuildInputs,
  PULL_SECRET,
} from '../support/fixtures/bundle-build-player.js';
import { instancesTornDown } from '../support/fixtures/pool-fixtures.js';

/*
 * samples/crcbundle-build.yaml as `guestcluster local up` builds it: the build guests and the
 * release tools' stand-ins the local environment gives every build Job (simulatedBuilds), with no
 * result played by the test. The sample is applied as it is, but for a name of the test's own, the
 * operator namespace of this world and the labels that put it in this operator's scope.
 */

const suffix = randomBytes(3).toString('hex');
// As in the local environment, the operator's namespace (where the build runs and validates its
// disk) is not one of the tenants' namespaces.
const world = useWorld({
  namespace: `bundle-sample-${suffix}`,
  enabled: true,
  operatorNamespace: 'bundle-build-sample',
});
const { operatorNs: ops } = world;

/** The sample's documents, the CRCBundle first, as kubectl apply would read them. */
async function sample(): Promise<{ bundle: CRCBundle; configMaps: KubeObject[] }> {
  const text = await readFile(path.join(projectRoot(), 'samples', 'crcbundle-build.yaml'), 'utf8');
  const objects = parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject);
  const bundle = objects.find((o) => o.kind === BUNDLES.kind) as CRCBundle;
  return { bundle, configMaps: objects.filter((o) => o.kind === CONFIG_MAPS.kind) };
}

describe('the build sample in the local environment', () => {
  let name = '';
  let tenant = '';
  const consumer = world.ns;

  beforeAll(async () => {
    tenant = consumer.name;
    // The sample's consumers: namespaces labelled example.com/team=platform.
    await ops.api.patch(
      NAMESPACES,
      { name: tenant },
      {
        metadata: { labels: { 'example.com/team': 'platform' } },
      },
    );
    await world.startPlatform({ crc: { guestApi: 'per-guest', ...simulatedBuilds(ops.api) } });
    await world.startOperator({ config: { operatorNamespace: ops.name }, bundles: true });
  });

  it('goes to Ready from the sample as applied, and a pool on it gets a Ready instance', async () => {
    const { bundle, configMaps } = await sample();
    name = `${bundle.metadata!.name}-${suffix}`;
    // Its Secret, as the sample's comment asks for it (data key .dockerconfigjson).
    await ops.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: bundle.spec.build!.pullSecretRef.name, namespace: ops.name },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': JSON.stringify(PULL_SECRET) },
    } as Secret);
    for (const configMap of configMaps)
      await ops.api.create(CONFIG_MAPS, {
        ...configMap,
        metadata: { ...configMap.metadata, namespace: ops.name },
      });
    // Short agent waits: the simulated guests answer at once.
    world.platform.agentEnv.set(name, {
      CRC_AGENT_RETRY_INTERVAL: '50ms',
      CRC_AGENT_SSH_WAIT_TIMEOUT: '20s',
      CRC_AGENT_CLUSTER_POLL_TIMEOUT: '20s',
    });
    await ops.api.create(BUNDLES, {
      ...bundle,
      metadata: { name, labels: { ...world.scopeLabels } },
    });
    const built = await waitFor<CRCBundle>(ops.kubeConfig, {
      type: BUNDLES,
      name,
      until: (b) => ['Ready', 'Failed'].includes(b?.status?.phase ?? ''),
      description: `bundle ${name} built`,
      timeoutMs: 150_000,
    });
    expect(condition(built, 'Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
    expect(condition(built, 'Validated')).toMatchObject({ status: 'True' });
    expect(built!.status).toMatchObject({
      phase: 'Ready',
      qcow2PVCRef: { name: `${name}-golden` },
      sshKeySecretRef: { name: `${name}-ssh-key` },
      ocpVersion: SIMULATED_RELEASE.ocpVersion,
    });

    await createBuildInputs(consumer.api, tenant);
    const pool: ClusterPool = {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: 'on-sample', namespace: tenant },
      spec: {
        type: 'crc',
        minSize: 1,
        maxSize: 1,
        template: {
          crcBundleRef: { name },
          ocpVersion: SIMULATED_RELEASE.ocpVersion,
          memory: '4Gi',
          cores: 2,
          pullSecretRef: { name: 'build-pull-secret' },
        },
      },
    };
    await consumer.api.create(POOLS, pool);
    try {
      const instance = await waitFor<ClusterInstance>(consumer.kubeConfig, {
        type: INSTANCES,
        namespace: tenant,
        name: 'on-sample-0',
        until: (i) => ['Ready', 'Failed'].includes(i?.status?.phase ?? ''),
        description: 'the pool instance on the built bundle Ready',
        timeoutMs: 90_000,
      });
      expect(instance!.status!.phase).toBe('Ready');
      expect(instance!.status!.crc!.bootKey).toMatchObject({
        pvcName: `${name}-golden`,
        secretName: `${name}-ssh-key`,
      });
    } finally {
      await consumer.api.delete(POOLS, 'on-sample', tenant);
      await instancesTornDown(consumer.kubeConfig, tenant);
      await ops.api.delete(BUNDLES, name);
    }
  });
});
