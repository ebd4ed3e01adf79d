import { parse, stringify } from 'yaml';

interface KubeconfigClusters {
  clusters?: { name?: string; cluster?: Record<string, unknown> }[];
}

/**
 * Points every cluster entry of HyperShift's admin kubeconfig at the external endpoint, trusting
 * the KAS serving certificate (spec §3.14). A `tls-server-name` is dropped as well: it named the
 * old server and would break verification of the new one.
 */
export function rewriteKubeconfig(kubeconfig: string, endpoint: string, caPem: string): string {
  const config = parse(kubeconfig) as KubeconfigClusters | null;
  if (!config || !Array.isArray(config.clusters) || config.clusters.length === 0)
    throw new Error('kubeconfig has no clusters');
  for (const entry of config.clusters) {
    const cluster = { ...(entry.cluster ?? {}) };
    cluster.server = endpoint;
    delete cluster['certificate-authority'];
    delete cluster['insecure-skip-tls-verify'];
    delete cluster['tls-server-name'];
    cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
    entry.cluster = cluster;
  }
  return stringify(config);
}
