import { retry } from './retry.js';
import type { RetryOptions } from './retry.js';
import { isAlreadyExists, isNotFound } from '../client/kube/api-error.js';
import type { RestClient } from './rest-client.js';
import { buildHtpasswd, randomKubeadminPassword } from './htpasswd.js';
import type { Logger } from './logger.js';
import { AgentError, errorMessage } from './errors.js';

const MERGE_PATCH = 'application/merge-patch+json';
const CONFIG_NS = '/api/v1/namespaces/openshift-config';
const b64 = (data: string | Buffer): string => Buffer.from(data).toString('base64');

export const REQUIRED_OPERATORS = [
  'authentication',
  'console',
  'etcd',
  'ingress',
  'openshift-apiserver',
] as const;

export interface ClusterPoll {
  intervalMs: number;
  timeoutMs: number;
  signal: AbortSignal;
}

interface Condition {
  type?: string;
  status?: string;
}

interface Csr {
  metadata: { name: string };
  spec?: { signerName?: string };
  status?: { conditions?: (Condition & Record<string, unknown>)[]; certificate?: string };
}

interface SecretBody {
  metadata?: Record<string, unknown>;
  type?: string;
  data?: Record<string, string>;
}

const KUBELET_SIGNERS = [
  'kubernetes.io/kube-apiserver-client-kubelet',
  'kubernetes.io/kubelet-serving',
];

export function isPendingKubeletCsr(csr: Csr): boolean {
  if (!KUBELET_SIGNERS.includes(csr.spec?.signerName ?? '')) return false;
  const decided = (csr.status?.conditions ?? []).some(
    (c) => c.type === 'Approved' || c.type === 'Denied',
  );
  return !decided && !csr.status?.certificate;
}

export function allOperatorsAvailable(
  operators: { status?: { conditions?: Condition[] } }[],
): boolean {
  return operators.every((operator) =>
    (operator.status?.conditions ?? []).some((c) => c.type === 'Available' && c.status === 'True'),
  );
}

/**
 * The cluster fixups of docs/reference/agent-protocol.md#cluster-fixups, through the tunnelled
 * guest API client.
 */
export class ClusterFixups {
  constructor(
    private readonly api: RestClient,
    private readonly poll: ClusterPoll,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private pollFor<T>(
    what: string,
    options: Pick<RetryOptions<T>, 'attempt' | 'omitLastError'>,
  ): Promise<T> {
    return retry({
      what,
      ...this.poll,
      ...options,
      onNotYet: (attempt, lastError) => {
        if (attempt === 1 || attempt % 6 === 0)
          this.log.info({ attempt, ...(lastError ? { lastError } : {}) }, `Waiting for ${what}`);
      },
    });
  }

  async waitForApiServer(): Promise<void> {
    await this.pollFor('the guest API server to answer through the SSH tunnel', {
      attempt: async (signal) => {
        await this.api.json({ method: 'GET', path: '/api/v1/namespaces?limit=1', signal });
        return true;
      },
    });
  }

  /** One pass: approves every pending kubelet client and serving CSR. */
  async approveKubeletCsrs(): Promise<number> {
    const list = await this.api.json<{ items?: Csr[] }>({
      method: 'GET',
      path: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
      signal: this.poll.signal,
    });
    const pending = (list.items ?? []).filter(isPendingKubeletCsr);
    for (const csr of pending) {
      const conditions = [
        ...(csr.status?.conditions ?? []),
        {
          type: 'Approved',
          status: 'True',
          reason: 'CRCAgentApproval',
          message: 'Approved by crc-agent during CRC cluster setup',
          lastUpdateTime: this.now().toISOString(),
        },
      ];
      await this.api.json({
        method: 'PUT',
        path: `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csr.metadata.name}/approval`,
        body: { ...csr, status: { ...csr.status, conditions } },
        signal: this.poll.signal,
      });
      this.log.info(`Approved CertificateSigningRequest ${csr.metadata.name}`);
    }
    return pending.length;
  }

  async injectPullSecret(pullSecret: Buffer): Promise<void> {
    await this.api.json({
      method: 'PATCH',
      path: `${CONFIG_NS}/secrets/pull-secret`,
      contentType: MERGE_PATCH,
      body: { data: { '.dockerconfigjson': b64(pullSecret) } },
      signal: this.poll.signal,
    });
    this.log.info('Patched Secret openshift-config/pull-secret');
  }

  /** Sets kubeadmin (random, never published) and developer; other users' lines are kept. */
  async setPasswords(kubeadminPassword: string = randomKubeadminPassword()): Promise<void> {
    const path = `${CONFIG_NS}/secrets/htpass-secret`;
    let existing = '';
    try {
      const secret = await this.api.json<SecretBody>({
        method: 'GET',
        path,
        signal: this.poll.signal,
      });
      existing = Buffer.from(secret.data?.htpasswd ?? '', 'base64').toString('utf8');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const htpasswd = buildHtpasswd(existing, {
      kubeadmin: kubeadminPassword,
      developer: 'developer',
    });
    try {
      await this.api.json({
        method: 'PATCH',
        path,
        contentType: MERGE_PATCH,
        body: { data: { htpasswd: b64(htpasswd) } },
        signal: this.poll.signal,
      });
      this.log.info('Patched Secret openshift-config/htpass-secret');
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await this.api.json({
        method: 'POST',
        path: `${CONFIG_NS}/secrets`,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'htpass-secret', namespace: 'openshift-config' },
          stringData: { htpasswd },
        },
        signal: this.poll.signal,
      });
      this.log.info('Created Secret openshift-config/htpass-secret');
    }
  }

  /** Serves the identity's certificate for the Route host from the guest kube-apiserver. */
  async configureServingCertificate(
    apiHostname: string,
    certPem: string,
    keyPem: string,
  ): Promise<void> {
    const wanted = {
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(certPem), 'tls.key': b64(keyPem) },
    };
    const signal = this.poll.signal;
    try {
      await this.api.json({
        method: 'POST',
        path: `${CONFIG_NS}/secrets`,
        body: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'external-api-serving-cert', namespace: 'openshift-config' },
          ...wanted,
        },
        signal,
      });
      this.log.info('Created Secret openshift-config/external-api-serving-cert');
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const path = `${CONFIG_NS}/secrets/external-api-serving-cert`;
      const current = await this.api.json<SecretBody>({ method: 'GET', path, signal });
      const same =
        current.type === wanted.type &&
        current.data?.['tls.crt'] === wanted.data['tls.crt'] &&
        current.data?.['tls.key'] === wanted.data['tls.key'];
      if (!same) {
        await this.api.json({ method: 'PUT', path, body: { ...current, ...wanted }, signal });
        this.log.info('Updated Secret openshift-config/external-api-serving-cert');
      }
    }
    await this.api.json({
      method: 'PATCH',
      path: '/apis/config.openshift.io/v1/apiservers/cluster',
      contentType: MERGE_PATCH,
      body: {
        spec: {
          servingCerts: {
            namedCertificates: [
              { names: [apiHostname], servingCertificate: { name: 'external-api-serving-cert' } },
            ],
          },
        },
      },
      signal,
    });
    this.log.info(`Patched APIServer cluster to serve ${apiHostname}`);
  }

  async waitForClusterOperators(): Promise<void> {
    await this.pollFor(`cluster operators ${REQUIRED_OPERATORS.join(', ')} to be Available`, {
      omitLastError: true,
      attempt: async (signal) => {
        const operators = await Promise.all(
          REQUIRED_OPERATORS.map((name) =>
            this.api.json<{ status?: { conditions?: Condition[] } }>({
              method: 'GET',
              path: `/apis/config.openshift.io/v1/clusteroperators/${name}`,
              signal,
            }),
          ),
        );
        return allOperatorsAvailable(operators) ? true : undefined;
      },
    });
  }

  async readOcpVersion(): Promise<string> {
    return this.pollFor('ClusterVersion version to report status.desired.version', {
      attempt: async (signal) => {
        const version = await this.api.json<{ status?: { desired?: { version?: unknown } } }>({
          method: 'GET',
          path: '/apis/config.openshift.io/v1/clusterversions/version',
          signal,
        });
        const value = version.status?.desired?.version;
        if (typeof value !== 'string' || value === '')
          throw new Error('ClusterVersion version has no status.desired.version yet');
        return value;
      },
    });
  }
}

export interface ClusterFixupInput {
  apiHostname: string;
  pullSecret: Buffer;
  servingCertPem: string;
  servingKeyPem: string;
}

/** Runs the cluster fixups in order; each failure names the step and what to check. */
export async function runClusterFixups(
  fixups: ClusterFixups,
  input: ClusterFixupInput,
): Promise<string> {
  const step = async <T>(name: string, hint: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw new AgentError(`cluster step "${name}" failed: ${errorMessage(error)}`, hint, {
        cause: error,
      });
    }
  };
  const guest =
    "check the guest's cluster (oc get clusteroperators, journalctl -u kubelet in the guest)";
  await step('wait for guest API server', `the guest kube-apiserver must come up; ${guest}`, () =>
    fixups.waitForApiServer(),
  );
  await step('approve kubelet CSRs', `the identity must be allowed to approve CSRs; ${guest}`, () =>
    fixups.approveKubeletCsrs(),
  );
  await step(
    'inject pull secret',
    'the pull secret must be valid JSON and openshift-config/pull-secret must exist in the guest',
    () => fixups.injectPullSecret(input.pullSecret),
  );
  await step('set htpasswd users', guest, () => fixups.setPasswords());
  await step('configure external API serving certificate', guest, () =>
    fixups.configureServingCertificate(
      input.apiHostname,
      input.servingCertPem,
      input.servingKeyPem,
    ),
  );
  await step('wait for cluster operators', guest, () => fixups.waitForClusterOperators());
  return step('read OpenShift version', guest, () => fixups.readOcpVersion());
}
