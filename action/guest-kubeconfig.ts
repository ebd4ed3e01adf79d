import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ClusterLease } from '../operator/api/resources.js';
import { SECRETS } from '../operator/api/resources.js';
import type { ApiClient } from '../operator/kube/api-client.js';
import type { KubeObject } from '../operator/kube/objects.js';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

/** The guest kubeconfig the operator copied into the lease's Secret. */
export async function readGuestKubeconfig(api: ApiClient, lease: ClusterLease): Promise<string> {
  const { name, namespace } = lease.metadata!;
  const secretName = lease.status?.kubeconfigSecretRef?.name ?? `${name}-kubeconfig`;
  const secret = await api.get<SecretObject>(SECRETS, secretName, namespace);
  const data = secret.data?.kubeconfig;
  if (!data) throw new Error(`Secret ${namespace}/${secretName} has no "kubeconfig" key`);
  return Buffer.from(data, 'base64').toString();
}

/** Writes a file only its owner can read, in a folder only its owner can enter. */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, content, { mode: 0o600 });
  // writeFile keeps the mode of a file that already existed.
  await chmod(file, 0o600);
}

export async function removeFile(file: string): Promise<void> {
  await rm(file, { force: true });
}
