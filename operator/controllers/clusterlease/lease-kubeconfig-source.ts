import { createHash } from 'node:crypto';
import { SECRETS } from '../../../client/api/resources.js';
import { isControlledBy } from '../../kube/ownership.js';
import type { Secret } from '../../kube/workloads.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance } from '../binding/binding-model.js';

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
  ports: ControllerPorts,
  instance: Instance,
): Promise<Record<string, string>> {
  const kubeconfig = await publishedKubeconfig(ports, instance);
  return { kubeconfig: b64(kubeconfig), ocpVersion: b64(instance.status?.ocpVersion ?? '') };
}

/**
 * The kubeconfig the operator published for the instance, verified: the Secret its status names,
 * controlled by the instance, holding exactly the digest its status records.
 */
export async function publishedKubeconfig(
  ports: ControllerPorts,
  instance: Instance,
): Promise<string> {
  const { name, namespace } = instance.metadata;
  const sourceName = instance.status?.kubeconfigSecretRef?.name;
  const recorded = instance.status?.kubeconfigSHA256;
  if (!sourceName || !recorded)
    throw new KubeconfigNotPublishedError(
      `ClusterInstance ${name} is Ready but has no status.kubeconfigSecretRef or status.kubeconfigSHA256`,
    );
  const source =
    (await ports.cache.read<Secret>(SECRETS)).get(sourceName, namespace) ??
    (await ports.client.get<Secret>(SECRETS, sourceName, namespace));
  const where = `kubeconfig Secret ${namespace}/${sourceName} of ClusterInstance ${name}`;
  if (!isControlledBy(source, instance))
    throw new Error(`${where} is not controlled by the instance`);
  const kubeconfig = Buffer.from(source.data?.kubeconfig ?? '', 'base64').toString('utf8');
  if (createHash('sha256').update(kubeconfig).digest('hex') !== recorded)
    throw new KubeconfigNotPublishedError(
      `${where} no longer holds the kubeconfig the operator published; not copied`,
    );
  return kubeconfig;
}
