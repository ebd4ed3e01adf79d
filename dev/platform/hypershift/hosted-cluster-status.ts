import type { KubeObject } from '../../../operator/kube/objects.js';
import { releaseVersion } from '../update-service/release-catalog.js';

export interface HostedClusterObject extends KubeObject {
  spec?: {
    release?: { image?: string };
    dns?: { baseDomain?: string };
    platform?: { type?: string; kubevirt?: { baseDomainPassthrough?: boolean } };
    services?: {
      service: string;
      servicePublishingStrategy?: {
        type?: string;
        nodePort?: { address?: string };
        route?: { hostname?: string };
      };
    }[];
    configuration?: {
      apiServer?: {
        servingCerts?: {
          namedCertificates?: { names?: string[]; servingCertificate?: { name?: string } }[];
        };
      };
    };
  };
  status?: Record<string, unknown>;
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Available, Progressing and Degraded, with lastTransitionTime kept while a status holds. */
export function hostedClusterConditions(
  hc: HostedClusterObject,
  available: boolean,
  waiting: [reason: string, message: string],
): Record<string, unknown>[] {
  const previous = (hc.status?.conditions ?? []) as {
    type: string;
    status: string;
    lastTransitionTime: string;
  }[];
  const condition = (
    type: string,
    status: 'True' | 'False',
    reason: string,
    message: string,
  ): Record<string, unknown> => {
    const old = previous.find((c) => c.type === type);
    return {
      type,
      status,
      reason,
      message,
      observedGeneration: hc.metadata?.generation,
      lastTransitionTime: old?.status === status ? old.lastTransitionTime : now(),
    };
  };
  return [
    available
      ? condition('Available', 'True', 'AsExpected', 'The hosted control plane is available')
      : condition('Available', 'False', ...waiting),
    available
      ? condition('Progressing', 'False', 'AsExpected', 'HostedCluster is at expected version')
      : condition('Progressing', 'True', 'AsExpected', 'HostedCluster is deploying'),
    condition('Degraded', 'False', 'AsExpected', 'The hosted cluster is not degraded'),
  ];
}

/**
 * status.version as HyperShift writes it (a ClusterVersionStatus): the desired release, one
 * history entry (Completed once available), the generation it reflects, and no available updates.
 * Every field the real schema requires is there.
 */
export function hostedClusterVersion(
  hc: HostedClusterObject,
  available: boolean,
): Record<string, unknown> {
  const image = hc.spec?.release?.image ?? '';
  const version = releaseVersion(image);
  return {
    desired: { image, version },
    history: [
      {
        state: available ? 'Completed' : 'Partial',
        image,
        version,
        verified: false,
        ...times(hc, image, available),
      },
    ],
    observedGeneration: hc.metadata?.generation,
    availableUpdates: null,
  };
}

/** When the update to `image` started, and when it completed (null until it has); kept once set. */
function times(
  hc: HostedClusterObject,
  image: string,
  available: boolean,
): { startedTime: string; completionTime: string | null } {
  const history = (hc.status?.version as { history?: Record<string, unknown>[] } | undefined)
    ?.history;
  const previous = history?.[0]?.image === image ? history[0] : undefined;
  const kept = (value: unknown): string | undefined =>
    typeof value === 'string' ? value : undefined;
  return {
    startedTime: kept(previous?.startedTime) ?? now(),
    completionTime: available ? (kept(previous?.completionTime) ?? now()) : null,
  };
}
