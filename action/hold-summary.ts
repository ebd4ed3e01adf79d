import type { ClusterLease } from '../client/api/resources.js';
import type { Hold } from '../client/lease/hold-lease.js';
import { formatSeconds } from '../client/lease/wait-progress.js';

type Subject = NonNullable<ClusterLease['spec']['subjects']>[number];

function subjectText(subject: Subject, namespace: string): string {
  if (subject.kind !== 'ServiceAccount') return `${subject.kind} ${subject.name}`;
  const saNamespace = subject.namespace ?? namespace;
  return `ServiceAccount ${saNamespace}/${subject.name} (\`kubectl -n ${saNamespace} create token ${subject.name}\` gives a token for it)`;
}

/**
 * How to reach a held cluster, in Markdown for the job summary and as plain lines for the log:
 * the management cluster's kubectl commands that read the lease's kubeconfig Secret (as one of
 * the lease's spec.subjects, or as a person who may read Secrets in the namespace), use it,
 * extend the hold and release the cluster. No credential is ever part of it.
 */
export function holdInstructions(hold: Hold): { heading: string; who: string; commands: string } {
  const { lease } = hold;
  const namespace = lease.metadata!.namespace!;
  const name = lease.metadata!.name!;
  const secret = lease.status?.kubeconfigSecretRef?.name ?? `${name}-kubeconfig`;
  const subjects = (lease.spec.subjects ?? []).map((s) => subjectText(s, namespace));
  const heading = `Held ClusterLease ${namespace}/${name} for ${formatSeconds(Math.round(hold.holdMs / 1000))} after the job failed: the operator releases it at ${hold.until} (TTL ${hold.ttl})${hold.shortenedBy ? `; shortened to fit ${hold.shortenedBy}` : ''}`;
  const who = `On the management cluster, as ${[...subjects, `a person who may read Secrets in namespace ${namespace}`].join(', or as ')}:`;
  const commands = [
    `kubectl -n ${namespace} get secret ${secret} -o jsonpath='{.data.kubeconfig}' | base64 -d > guest.kubeconfig`,
    `kubectl --kubeconfig guest.kubeconfig get clusterversion,nodes`,
    `# an hour more (spec.ttl counts from binding; the pool's limits apply), or release it now:`,
    `kubectl -n ${namespace} patch clusterlease ${name} --type=merge -p '{"spec":{"ttl":"${Number.parseInt(hold.ttl, 10) + 3600}s"}}'`,
    `kubectl -n ${namespace} delete clusterlease ${name}`,
  ].join('\n');
  return { heading, who, commands };
}
