import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { KubeconfigRejectedError, readStrictKubeconfig } from '../../../kube/strict-kubeconfig.js';
import { Reason } from '../core/reasons.js';

/**
 * The access the operator publishes for a hosted cluster
 * (docs/reference/generated-objects.md#hcp-kubeconfig, tightened): HyperShift's admin kubeconfig is
 * read strictly (one cluster, user and context; its server the hosted KAS, at HyperShift's control
 * plane endpoint; one inline credential), and only that credential is kept. The server is the
 * instance's external endpoint, the CA the KAS serving certificate the operator issued. Throws
 * KubeconfigRejectedError naming the refused field.
 */
export function hcpGuestAccess(
  adminKubeconfig: string,
  hosted: { controlPlaneEndpoint: string; endpoint: string; caPem: string },
): GuestAccess {
  const admin = readStrictKubeconfig(adminKubeconfig, {
    servers: [hosted.controlPlaneEndpoint, hosted.endpoint],
  });
  return { server: hosted.endpoint, ca: hosted.caPem, credentials: admin.credentials };
}

/**
 * `https://host:port` of HostedCluster status.controlPlaneEndpoint; undefined until HyperShift sets
 * it.
 */
export function controlPlaneEndpoint(
  status: Record<string, unknown> | undefined,
): string | undefined {
  const endpoint = status?.controlPlaneEndpoint as { host?: string; port?: number } | undefined;
  if (!endpoint?.host || !endpoint.port) return undefined;
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `https://${host}:${endpoint.port}`;
}

/**
 * What an hcp instance publishes, from the admin kubeconfig of its HostedCluster (in
 * `namespace`); or why it cannot yet (KubeconfigUnavailable) or will not (KubeconfigRejected, the
 * message naming the Secret and the field).
 */
export function publishedAccess(
  namespace: string,
  hostedCluster: Stored<KubeObject & { status?: Record<string, unknown> }>,
  adminKubeconfig: string,
  published: { endpoint: string; caPem: string },
): GuestAccess | { reason: string; message: string } {
  const kas = controlPlaneEndpoint(hostedCluster.status);
  if (!kas)
    return {
      reason: Reason.KubeconfigUnavailable,
      message: `HostedCluster ${hostedCluster.metadata.name} has no status.controlPlaneEndpoint yet`,
    };
  try {
    return hcpGuestAccess(adminKubeconfig, { controlPlaneEndpoint: kas, ...published });
  } catch (error) {
    if (!(error instanceof KubeconfigRejectedError)) throw error;
    const secret = (hostedCluster.status?.kubeconfig as { name?: string } | undefined)?.name;
    return {
      reason: Reason.KubeconfigRejected,
      message: `admin kubeconfig Secret ${namespace}/${secret} was refused: ${error.message}; no request was sent with it`,
    };
  }
}
