import type { GuestAccess } from '../../kube/strict-kubeconfig.js';
import type { ConnectAddress } from '../clusterinstance/core/guest-api-probe.js';
import type { GuestAnswer } from './guest-connection.js';
import { GuestConnection, certificateNotAfter } from './guest-connection.js';

/*
 * The readiness gates of a guest before it is handed out (docs/reference/instances.md#guest-health):
 * what a CI job needs from OpenShift, asked of the guest's own API with the kubeconfig the
 * operator published. Each check answers in the guest's own words; the first failing one is what
 * the instance's GuestHealthy condition says.
 */

/** One gate: its name, and why it fails (undefined when it passes). */
export interface GuestCheck {
  name: string;
  problem?: string;
}

export interface GuestHealthReport {
  checks: GuestCheck[];
  /** The earliest notAfter of the certificates a lease's user relies on (ms), when known. */
  certificatesNotAfter?: number;
}

export interface GuestCheckOptions {
  /** ClusterOperators whose conditions do not count (the pool's spec.guestHealth.ignoreOperators). */
  ignoreOperators: readonly string[];
  connectAddress?: ConnectAddress;
}

type Condition = { type?: string; status?: string; reason?: string; message?: string };
type Listed = {
  metadata?: { name?: string };
  spec?: { signerName?: string };
  status?: { conditions?: Condition[] };
};

/** The signers of the CSRs a node's kubelet files: one left pending is a node that cannot serve. */
const KUBELET_SIGNERS = [
  'kubernetes.io/kube-apiserver-client-kubelet',
  'kubernetes.io/kubelet-serving',
];

const items = (answer: GuestAnswer): Listed[] =>
  (answer.body as { items?: Listed[] } | undefined)?.items ?? [];
const condition = (object: Listed, type: string): Condition | undefined =>
  object.status?.conditions?.find((c) => c.type === type);
const said = (c: Condition | undefined): string =>
  c
    ? `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? `: ${c.message}` : ''}`
    : '';

/** Runs every gate against the guest; a guest that does not answer fails the first. */
export async function checkGuest(
  access: GuestAccess,
  options: GuestCheckOptions,
): Promise<GuestHealthReport> {
  const connection = new GuestConnection(access, options.connectAddress);
  try {
    const readyz = await connection.get('/readyz');
    if (readyz.status < 200 || readyz.status >= 300)
      return { checks: [{ name: 'readyz', problem: `/readyz answered ${readyz.status}` }] };
    const [operators, nodes, csrs] = await Promise.all([
      connection.get('/apis/config.openshift.io/v1/clusteroperators'),
      connection.get('/api/v1/nodes'),
      connection.get('/apis/certificates.k8s.io/v1/certificatesigningrequests'),
    ]);
    const notAfters = [
      connection.servingCertificateNotAfter,
      certificateNotAfter(access.ca),
      'cert' in access.credentials ? certificateNotAfter(access.credentials.cert) : undefined,
    ].filter((at): at is number => at !== undefined);
    return {
      checks: [
        { name: 'readyz' },
        { name: 'clusteroperators', problem: operatorsProblem(operators, options.ignoreOperators) },
        { name: 'nodes', problem: nodesProblem(nodes) },
        { name: 'csrs', problem: csrsProblem(csrs) },
      ],
      ...(notAfters.length ? { certificatesNotAfter: Math.min(...notAfters) } : {}),
    };
  } catch (error) {
    return {
      checks: [
        { name: 'readyz', problem: `the guest API does not answer: ${(error as Error).message}` },
      ],
    };
  } finally {
    await connection.close();
  }
}

/** Every ClusterOperator not ignored is Available=True and not Degraded=True. */
export function operatorsProblem(
  answer: GuestAnswer,
  ignore: readonly string[],
): string | undefined {
  if (answer.status !== 200) return `listing ClusterOperators answered ${answer.status}`;
  const listed = items(answer);
  if (listed.length === 0) return 'the guest reports no ClusterOperator';
  for (const operator of listed) {
    const name = operator.metadata?.name ?? '';
    if (ignore.includes(name)) continue;
    const available = condition(operator, 'Available');
    if (available?.status !== 'True')
      return `ClusterOperator ${name} is not Available${available ? `: ${said(available)}` : ' (no Available condition)'}`;
    const degraded = condition(operator, 'Degraded');
    if (degraded?.status === 'True')
      return `ClusterOperator ${name} is Degraded: ${said(degraded)}`;
  }
  return undefined;
}

/** Every node is Ready=True. */
export function nodesProblem(answer: GuestAnswer): string | undefined {
  if (answer.status !== 200) return `listing nodes answered ${answer.status}`;
  const listed = items(answer);
  if (listed.length === 0) return 'the guest has no node';
  const notReady = listed.find((node) => condition(node, 'Ready')?.status !== 'True');
  if (!notReady) return undefined;
  const ready = condition(notReady, 'Ready');
  return `node ${notReady.metadata?.name} is not Ready${ready ? `: ${said(ready)}` : ''}`;
}

/** No kubelet CSR waits for approval (no Approved, Denied or Failed condition). */
export function csrsProblem(answer: GuestAnswer): string | undefined {
  if (answer.status !== 200) return `listing CertificateSigningRequests answered ${answer.status}`;
  const pending = items(answer).filter(
    (csr) =>
      KUBELET_SIGNERS.includes(csr.spec?.signerName ?? '') &&
      !['Approved', 'Denied', 'Failed'].some((type) => condition(csr, type)?.status === 'True'),
  );
  if (pending.length === 0) return undefined;
  const names = pending.map((csr) => csr.metadata?.name).join(', ');
  return `${pending.length} kubelet CertificateSigningRequest(s) pending approval: ${names}`;
}
