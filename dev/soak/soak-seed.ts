import path from 'node:path';
import type { ApiClient } from '../../client/kube/api-client.js';
import { NAMESPACES, POOLS, SECRETS } from '../../client/api/resources.js';
import type { ClusterPool } from '../../client/api/resources.js';
import { runCommand } from '../control-plane/run-command.js';
import { projectRoot } from '../control-plane/project-root.js';
import type { Topology } from './soak-schedule.js';

/** The soak's tenant namespace, its pools (one per topology) and the GitHub credentials Secret. */
export const SOAK = {
  namespace: 'soak',
  pools: { crc: 'soak-crc', hcp: 'soak-hcp' } satisfies Record<Topology, string>,
  operatorNamespace: 'guestcluster-operator-system',
  githubSecret: 'soak-github-credentials',
  crcVersion: '4.16.0',
} as const;

const PULL_SECRET =
  '{"auths":{"registry.example.com":{"auth":"cGxhY2Vob2xkZXI6cGxhY2Vob2xkZXI="}}}';

function pool(topology: Topology): ClusterPool {
  const template =
    topology === 'crc'
      ? {
          crcVersion: SOAK.crcVersion,
          crcArch: 'amd64',
          ocpVersion: '4.16.0',
          memory: '16Gi',
          cores: 4,
          rootVolumeSize: '80Gi',
        }
      : {
          releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.10-multi',
          ocpVersion: '4.16.10',
          nodePoolReplicas: 1,
          controllerAvailabilityPolicy: 'SingleReplica',
          memory: '8Gi',
          cores: 2,
          rootVolumeSize: '32Gi',
        };
  return {
    apiVersion: POOLS.apiVersion,
    kind: 'ClusterPool',
    metadata: { name: SOAK.pools[topology], namespace: SOAK.namespace },
    spec: { type: topology, maxSize: 4, warmSpares: 2, template },
  } as ClusterPool;
}

/**
 * What an administrator installs (the deploy manifests without the Deployment, as `local up`
 * applies them) and what a CI team makes: an enabled namespace, its pull secret, a crc and an hcp
 * pool; and the credentials Secret of the operator's GitHub reclaim.
 */
export async function seedSoak(
  api: ApiClient,
  kubectl: { binary: string; kubeconfig: string },
  githubToken: string,
): Promise<void> {
  await runCommand(kubectl.binary, [
    '--kubeconfig',
    kubectl.kubeconfig,
    'apply',
    '--server-side',
    '--force-conflicts',
    '-k',
    path.join(projectRoot(), 'dev', 'local', 'deploy'),
  ]);
  await api.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: SOAK.namespace, labels: { 'guestcluster.opdev.io/enabled': 'true' } },
  });
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: SOAK.namespace },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': PULL_SECRET },
  });
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: SOAK.githubSecret, namespace: SOAK.operatorNamespace },
    stringData: { token: githubToken },
  });
}

/** The pools go in once the baseline of the namespace is taken (see leftover-check.ts). */
export async function createPools(api: ApiClient): Promise<void> {
  for (const topology of ['crc', 'hcp'] as const) await api.create(POOLS, pool(topology));
}
