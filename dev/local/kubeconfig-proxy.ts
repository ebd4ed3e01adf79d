import { readFile, writeFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';

interface Kubeconfig {
  clusters?: { name?: string; cluster?: Record<string, unknown> }[];
}

/**
 * A kubeconfig whose clusters go through `proxyUrl` (`proxy-url`, which kubectl and client
 * libraries honour per cluster): Route hosts of the local environment have no DNS, and its router
 * is also an HTTPS proxy. For the kubeconfigs the local environment hands to people only; the
 * operator's published ones stay without it, and the operator and the Action refuse one that
 * carries it (operator/kube/strict-kubeconfig.ts).
 */
export function withProxyUrl(kubeconfig: string, proxyUrl: string): string {
  const config = parse(kubeconfig) as Kubeconfig;
  for (const entry of config.clusters ?? [])
    entry.cluster = { ...entry.cluster, 'proxy-url': proxyUrl };
  return stringify(config);
}

/** Rewrites a kubeconfig file in place with `proxy-url` on its clusters; it stays mode 0600. */
export async function addProxyUrl(file: string, proxyUrl: string): Promise<void> {
  await writeFile(file, withProxyUrl(await readFile(file, 'utf8'), proxyUrl), { mode: 0o600 });
}
