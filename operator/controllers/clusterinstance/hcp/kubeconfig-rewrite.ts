import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { readStrictKubeconfig } from '../../../kube/strict-kubeconfig.js';

/**
 * The access the operator publishes for a hosted cluster (spec §3.14, tightened): HyperShift's
 * admin kubeconfig is read strictly (one cluster, user and context; its server the hosted KAS,
 * at HyperShift's control plane endpoint; one inline credential), and only that credential is
 * kept. The server is the instance's external endpoint, the CA the KAS serving certificate the
 * operator issued. Throws KubeconfigRejectedError naming the refused field.
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

/** `https://host:port` of HostedCluster status.controlPlaneEndpoint; undefined until HyperShift sets it. */
export function controlPlaneEndpoint(
  status: Record<string, unknown> | undefined,
): string | undefined {
  const endpoint = status?.controlPlaneEndpoint as { host?: string; port?: number } | undefined;
  if (!endpoint?.host || !endpoint.port) return undefined;
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `https://${host}:${endpoint.port}`;
}
