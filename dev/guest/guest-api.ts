import forge from 'node-forge';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { adminAccessFromFile } from '../support/admin-access.js';
import { LocalControlPlane } from '../control-plane/control-plane.js';
import { nativeSigner } from '../../contracts/certificates.js';
import type { RestClient } from '../../crc-agent/rest-client.js';
import { installGuestCrds, warmGuestKinds } from './guest-crds.js';
import type { ClientTls } from './admin-rest.js';
import { clientTlsFromKubeconfig, directRestClient } from './admin-rest.js';
import type { BundlePki } from './guest-pki.js';
import { REQUIRED_OPERATORS } from '../../crc-agent/cluster-fixups.js';
import { clusterOperatorStatus, clusterVersionStatus } from './guest-cluster-version.js';
import { kubeletReadyCondition } from './kubelet-ready.js';

const CONFIG = '/apis/config.openshift.io/v1';

/**
 * The ClusterOperators of a fresh cluster the guest reports: those crc-agent waits for, and a few
 * more that every OpenShift 4 cluster runs.
 */
const GUEST_OPERATORS = [
  ...REQUIRED_OPERATORS,
  'dns',
  'kube-apiserver',
  'machine-config',
  'network',
] as const;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

export interface GuestClusterSeed {
  ocpVersion: string;
  /** Initial htpass-secret content; no Secret when absent. */
  htpasswd?: string;
  pullSecret: string;
  /**
   * Whether the kubelet's CSRs wait for approval, as on a booted CRC VM (crc-agent approves them,
   * as CRC does); a hosted cluster's are approved by HyperShift's machine approver already.
   */
  pendingKubeletCsrs?: boolean;
}

/** A kubelet client CSR as a real kubelet files it (CN system:node:<node>, O system:nodes). */
function kubeletCsrPem(node: string): string {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(publicKey);
  csr.setSubject([
    { name: 'commonName', value: `system:node:${node}` },
    { name: 'organizationName', value: 'system:nodes' },
  ]);
  csr.sign(nativeSigner(privateKey), forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

/**
 * The kube-apiserver inside the simulated CRC guest: a second, independent local control plane
 * with the OpenShift configuration kinds and the objects a freshly booted CRC cluster has.
 */
export class GuestApiServer {
  private constructor(
    /** The control plane this server started; none for one it connected to. */
    private readonly plane: LocalControlPlane | undefined,
    readonly upstream: ClientTls,
    readonly admin: RestClient,
    readonly kubeconfigPath: string,
  ) {}

  /**
   * A guest API server another process started (and will stop), by its admin kubeconfig: stopping
   * this one leaves it running.
   */
  static connect(kubeconfigPath: string): GuestApiServer {
    const upstream = clientTlsFromKubeconfig(kubeconfigPath);
    return new GuestApiServer(undefined, upstream, directRestClient(upstream), kubeconfigPath);
  }

  static async start(): Promise<GuestApiServer> {
    const plane = await LocalControlPlane.start({ controllerManager: false });
    try {
      const crds = await installGuestCrds(adminAccessFromFile(plane.kubeconfigPath));
      const upstream = clientTlsFromKubeconfig(plane.kubeconfigPath);
      const admin = directRestClient(upstream);
      await warmGuestKinds(admin, crds);
      return new GuestApiServer(plane, upstream, admin, plane.kubeconfigPath);
    } catch (error) {
      await plane.stop();
      throw error;
    }
  }

  /** The guest's apiserver goes at once, as it does when its VM is halted. */
  async stop(): Promise<void> {
    await this.plane?.kill();
  }

  /**
   * Creates what a booted CRC cluster holds before crc-agent runs: the openshift-config
   * namespace, then everything else at once (nothing of it refers to anything else by then).
   */
  async seed(pki: BundlePki, seed: GuestClusterSeed): Promise<void> {
    const post = (path: string, body: unknown): Promise<unknown> =>
      this.admin.json({ method: 'POST', path, body });
    await post('/api/v1/namespaces', { metadata: { name: 'openshift-config' } });
    // What the cluster-version operator reports, with every field its CRD requires.
    const image = `quay.io/openshift-release-dev/ocp-release:${seed.ocpVersion}-x86_64`;
    const since = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await Promise.all([
      post('/api/v1/namespaces/openshift-config/configmaps', {
        metadata: { name: 'admin-kubeconfig-client-ca' },
        data: { 'ca-bundle.crt': pki.adminCa.certificatePem },
      }),
      post('/api/v1/namespaces/openshift-config/secrets', {
        metadata: { name: 'pull-secret' },
        type: 'kubernetes.io/dockerconfigjson',
        data: { '.dockerconfigjson': b64(seed.pullSecret) },
      }),
      seed.htpasswd !== undefined &&
        post('/api/v1/namespaces/openshift-config/secrets', {
          metadata: { name: 'htpass-secret' },
          data: { htpasswd: b64(seed.htpasswd) },
        }),
      // OpenShift binds the system:admin user to cluster-admin.
      post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name: 'crc-system-admin' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cluster-admin',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:admin' }],
      }),
      this.createWithStatus(
        `${CONFIG}/clusterversions`,
        'version',
        clusterVersionStatus(seed.ocpVersion, image, since),
        { clusterID: randomUUID() },
      ),
      ...GUEST_OPERATORS.map((name) =>
        this.createWithStatus(
          `${CONFIG}/clusteroperators`,
          name,
          clusterOperatorStatus(seed.ocpVersion, since),
        ),
      ),
      post(`${CONFIG}/apiservers`, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'APIServer',
        metadata: { name: 'cluster' },
        spec: {},
      }),
      post(`${CONFIG}/oauths`, {
        apiVersion: 'config.openshift.io/v1',
        kind: 'OAuth',
        metadata: { name: 'cluster' },
        spec: {
          identityProviders: [
            {
              name: 'developer',
              type: 'HTPasswd',
              htpasswd: { fileData: { name: 'htpass-secret' } },
            },
          ],
        },
      }),
      this.createNode('crc'),
      seed.pendingKubeletCsrs !== false &&
        this.createCsr('csr-kubelet-client', 'kubernetes.io/kube-apiserver-client-kubelet'),
      this.createCsr('csr-other-signer', 'kubernetes.io/kube-apiserver-client'),
    ]);
  }

  /**
   * Sets one condition of a ClusterOperator as its operator would (a test breaking the guest:
   * `Degraded=True`), keeping the others.
   */
  async setOperatorCondition(
    name: string,
    condition: { type: string; status: string; reason: string; message: string },
  ): Promise<void> {
    const path = `${CONFIG}/clusteroperators/${name}`;
    const current = await this.admin.json<{
      metadata: object;
      status?: { conditions?: { type: string }[] };
    }>({ method: 'GET', path });
    const since = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditions = [
      ...(current.status?.conditions ?? []).filter((c) => c.type !== condition.type),
      { ...condition, lastTransitionTime: since },
    ];
    await this.admin.json({
      method: 'PUT',
      path: `${path}/status`,
      body: { ...current, status: { ...current.status, conditions } },
    });
  }

  private async createWithStatus(
    collection: string,
    name: string,
    status: unknown,
    spec: object = {},
  ): Promise<void> {
    const kind = collection.endsWith('clusterversions') ? 'ClusterVersion' : 'ClusterOperator';
    const created = await this.admin.json<{ metadata: object }>({
      method: 'POST',
      path: collection,
      body: { apiVersion: 'config.openshift.io/v1', kind, metadata: { name }, spec },
    });
    await this.admin.json({
      method: 'PUT',
      path: `${collection}/${name}/status`,
      body: { apiVersion: 'config.openshift.io/v1', kind, metadata: created.metadata, status },
    });
  }

  /** The cluster's one node (CRC's is called crc), Ready, as its kubelet reports it. */
  private async createNode(name: string): Promise<void> {
    const created = await this.admin.json<{ metadata: object }>({
      method: 'POST',
      path: '/api/v1/nodes',
      body: {
        metadata: {
          name,
          labels: {
            'kubernetes.io/hostname': name,
            'node-role.kubernetes.io/control-plane': '',
            'node-role.kubernetes.io/master': '',
            'node-role.kubernetes.io/worker': '',
          },
        },
      },
    });
    await this.admin.json({
      method: 'PUT',
      path: `/api/v1/nodes/${name}/status`,
      body: {
        metadata: created.metadata,
        status: {
          conditions: [kubeletReadyCondition()],
          nodeInfo: { kubeletVersion: 'v1.29.7', osImage: 'Red Hat Enterprise Linux CoreOS' },
        },
      },
    });
  }

  private async createCsr(name: string, signerName: string): Promise<void> {
    await this.admin.json({
      method: 'POST',
      path: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
      body: {
        metadata: { name },
        spec: {
          request: b64(kubeletCsrPem('crc')),
          signerName,
          usages: ['digital signature', 'client auth'],
        },
      },
    });
  }
}
