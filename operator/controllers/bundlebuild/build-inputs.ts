import { createHash } from 'node:crypto';
import { CONFIG_MAPS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import type { ConfigMap, Secret } from '../../kube/workloads.js';
import type { KubeClient } from '../../kube/kube-client.js';
import { BUILD_MOUNTS } from '../../../contracts/bundle-build.js';
import { DOCKER_CONFIG_KEY, dockerConfigProblem } from '../../kube/docker-config.js';

export type InputRecord = NonNullable<
  NonNullable<NonNullable<CRCBundle['status']>['build']>['inputs']
>[number];

type Role = 'PullSecret' | 'InstallationManifest' | 'PostInstallManifest';

/** One referenced object's content, as read at the start of the build. */
interface Input {
  role: Role;
  kind: 'Secret' | 'ConfigMap';
  name: string;
  resourceVersion: string;
  /** Data keys and values (bytes), in key order. */
  data: [string, Buffer][];
}

/** The build's inputs as read: their records for the status, and the snapshot Secret's data. */
export interface ReadInputs {
  records: InputRecord[];
  /** Base64 data of the snapshot Secret the Jobs mount (never the referenced objects). */
  snapshot: Record<string, string>;
}

/** A missing input: the build waits for it (the deadline bounds the wait). */
export class MissingInput extends Error {
  override name = 'MissingInput';
}

/**
 * A pull secret that exists but cannot be used (operator/kube/docker-config.ts): the build waits
 * with reason InvalidPullSecret until it is corrected (the deadline bounds the wait).
 */
export class InvalidPullSecret extends MissingInput {
  override name = 'InvalidPullSecret';
}

export const PULL_SECRET_KEY = DOCKER_CONFIG_KEY;
const SNAPSHOT_PULL_SECRET = 'pull-secret';

/** The snapshot key of a manifest object's data key. */
function snapshotKey(role: Role, index: number, key: string): string {
  return `${role === 'InstallationManifest' ? 'install' : 'post'}-${String(index).padStart(2, '0')}-${key}`;
}

/** SHA-256 over the data keys and values in key order (each length-prefixed). */
export function contentDigest(data: [string, Buffer][]): string {
  const hash = createHash('sha256');
  for (const [key, value] of data) {
    hash.update(`${Buffer.byteLength(key)}:${key}:${value.length}:`);
    hash.update(value);
  }
  return hash.digest('hex');
}

function dataOf(object: Secret | ConfigMap, kind: Input['kind']): [string, Buffer][] {
  const entries =
    kind === 'Secret'
      ? Object.entries((object as Secret).data ?? {}).map(
          ([k, v]) => [k, Buffer.from(v, 'base64')] as [string, Buffer],
        )
      : Object.entries(object.data ?? {}).map(
          ([k, v]) => [k, Buffer.from(v, 'utf8')] as [string, Buffer],
        );
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The pull secret's `.dockerconfigjson`, when container runtimes can use it (docker-config.ts). */
function usablePullSecret(pull: Input, namespace: string): Buffer {
  const value = pull.data.find(([key]) => key === PULL_SECRET_KEY)?.[1];
  if (!value)
    throw new InvalidPullSecret(
      `pull secret ${namespace}/${pull.name} is missing data key "${PULL_SECRET_KEY}": it must be a kubernetes.io/dockerconfigjson pull secret`,
    );
  const problem = dockerConfigProblem(value);
  if (problem)
    throw new InvalidPullSecret(
      `pull secret ${namespace}/${pull.name}: data key "${PULL_SECRET_KEY}" ${problem}; correct the Secret`,
    );
  return value;
}

/**
 * Reads every input of the build live from the operator namespace (never another namespace) and
 * digests it; the Jobs get a copy, so a later change of an input does not reach a running build.
 */
export async function readBuildInputs(
  client: KubeClient,
  bundle: StoredCluster<CRCBundle>,
  namespace: string,
): Promise<ReadInputs> {
  const build = bundle.spec.build!;
  const wanted: { role: Role; kind: Input['kind']; name: string }[] = [
    { role: 'PullSecret', kind: 'Secret', name: build.pullSecretRef.name },
    ...(build.installationManifestRefs ?? []).map((ref) => ({
      role: 'InstallationManifest' as const,
      kind: ref.kind ?? 'ConfigMap',
      name: ref.name,
    })),
    ...(build.postInstallManifestRefs ?? []).map((ref) => ({
      role: 'PostInstallManifest' as const,
      kind: ref.kind ?? 'ConfigMap',
      name: ref.name,
    })),
  ];
  const inputs: Input[] = [];
  for (const want of wanted) {
    const type = want.kind === 'Secret' ? SECRETS : CONFIG_MAPS;
    const object = await client.getOrUndefined<Secret | ConfigMap>(type, want.name, namespace);
    if (!object)
      throw new MissingInput(
        `${want.kind} ${namespace}/${want.name} (${want.role}) does not exist: create it in the operator namespace`,
      );
    const input = { ...want, resourceVersion: object.metadata.resourceVersion };
    inputs.push({ ...input, data: dataOf(object, want.kind) });
    // Said before any later input is looked for: a person fixing inputs hears of it first.
    if (want.role === 'PullSecret') usablePullSecret(inputs[0]!, namespace);
  }
  const snapshot: Record<string, string> = {
    [SNAPSHOT_PULL_SECRET]: usablePullSecret(inputs[0]!, namespace).toString('base64'),
  };
  const counters: Record<string, number> = {};
  for (const input of inputs.slice(1)) {
    const index = (counters[input.role] = (counters[input.role] ?? -1) + 1);
    for (const [key, value] of input.data)
      snapshot[snapshotKey(input.role, index, key)] = value.toString('base64');
  }
  return {
    records: inputs.map((input) => ({
      role: input.role,
      kind: input.kind,
      namespace,
      name: input.name,
      resourceVersion: input.resourceVersion,
      sha256: contentDigest(input.data),
    })),
    snapshot,
  };
}

/** Where each snapshot key goes in a Job: the role's mount and the path under it. */
export interface SnapshotItems {
  pullSecret: { key: string; path: string }[];
  install: { key: string; path: string }[];
  post: { key: string; path: string }[];
}

const KEY = /^(install|post)-(\d{2})-(.+)$/;

/**
 * The snapshot Secret's items for a Job: the pull secret as its one file, and each manifest
 * object as `<NN>-<name>/<key>` under its role's folder (BUILD_MOUNTS), in spec order.
 */
export function snapshotItems(
  records: readonly InputRecord[],
  keys: readonly string[],
): SnapshotItems {
  const named = (role: Role): string[] => records.filter((r) => r.role === role).map((r) => r.name);
  const names = { install: named('InstallationManifest'), post: named('PostInstallManifest') };
  const items: SnapshotItems = {
    pullSecret: [{ key: SNAPSHOT_PULL_SECRET, path: BUILD_MOUNTS.pullSecret.file }],
    install: [],
    post: [],
  };
  for (const key of [...keys].sort()) {
    const match = KEY.exec(key);
    if (!match) continue;
    const [, role, index, file] = match as unknown as [string, 'install' | 'post', string, string];
    const name = names[role][Number(index)];
    if (name) items[role].push({ key, path: `${index}-${name}/${file}` });
  }
  return items;
}
