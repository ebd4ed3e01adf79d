import type { Hold } from '../../../client/lease/hold-lease.js';
import { formatSeconds } from '../../../client/lease/wait-progress.js';

/**
 * How to reach a held cluster, for the CI log: who may read its kubeconfig, and the commands that
 * read it, extend the hold and release it. No credential is ever part of it.
 */
export function holdInstructions(hold: Hold, why: string): string {
  const { lease } = hold;
  const namespace = lease.metadata!.namespace!;
  const name = lease.metadata!.name!;
  const subjects = (lease.spec.subjects ?? []).map((s) =>
    s.kind === 'ServiceAccount'
      ? `ServiceAccount ${s.namespace ?? namespace}/${s.name}`
      : `${s.kind} ${s.name}`,
  );
  const shortened = hold.shortenedBy ? `; shortened to fit ${hold.shortenedBy}` : '';
  return [
    `Held ClusterLease ${namespace}/${name} for ${formatSeconds(Math.round(hold.holdMs / 1000))} ${why}: the operator releases it at ${hold.until} (TTL ${hold.ttl})${shortened}`,
    `On the management cluster, as ${[...subjects, `a person who may read Secrets in namespace ${namespace}`].join(', or as ')}:`,
    `  guestcluster lease kubeconfig ${name} -n ${namespace} --kubeconfig-out guest.kubeconfig`,
    `  kubectl --kubeconfig guest.kubeconfig get clusterversion,nodes`,
    `  guestcluster lease release ${name} -n ${namespace}   # when done; the hold ends by itself otherwise`,
  ].join('\n');
}
