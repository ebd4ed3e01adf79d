import { createHash } from 'node:crypto';
import type { ClusterInstance } from '../../api/resources.js';
import { SECRETS } from '../../api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { Manager } from '../../runtime/manager.js';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * The instance's kubeconfig Secret does not hold (or the status does not record) what the
 * operator published: nothing to copy or compare with until the instance controller has
 * published it again.
 */
export class KubeconfigNotPublishedError extends Error {
  override name = 'KubeconfigNotPublishedError';
}

/**
 * What a lease's kubeconfig Secret must hold for the instance it binds: exactly the kubeconfig
 * the operator published for that instance, which the instance's status records by digest
 * (status.kubeconfigSHA256, written only by the operator), and the observed version. The
 * published Secret sits in a namespace where others may write Secrets: one that no longer holds
 * that kubeconfig is never copied (the instance controller rewrites it, and the lease tries
 * again).
 */
export async function leaseKubeconfigData(
  manager: Manager,
  instance: ClusterInstance,
): Promise<Record<string, string>> {
  const { name, namespace, uid } = instance.metadata!;
  const sourceName = instance.status?.kubeconfigSecretRef?.name;
  const recorded = instance.status?.kubeconfigSHA256;
  if (!sourceName || !recorded)
    throw new KubeconfigNotPublishedError(
      `ClusterInstance ${name} is Ready but has no status.kubeconfigSecretRef or status.kubeconfigSHA256`,
    );
  const source =
    manager.informer<SecretObject>(SECRETS).get(`${namespace}/${sourceName}`) ??
    (await manager.client.get<SecretObject>(SECRETS, sourceName, namespace));
  const where = `kubeconfig Secret ${namespace}/${sourceName} of ClusterInstance ${name}`;
  if (!source.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === uid))
    throw new Error(`${where} is not controlled by the instance`);
  const kubeconfig = Buffer.from(source.data?.kubeconfig ?? '', 'base64').toString('utf8');
  if (createHash('sha256').update(kubeconfig).digest('hex') !== recorded)
    throw new KubeconfigNotPublishedError(
      `${where} no longer holds the kubeconfig the operator published; not copied`,
    );
  return { kubeconfig: b64(kubeconfig), ocpVersion: b64(instance.status?.ocpVersion ?? '') };
}
