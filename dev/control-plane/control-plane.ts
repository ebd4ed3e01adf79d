import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BinaryPaths } from './binaries.js';
import { resolveBinaries } from './binaries.js';
import { freePort } from './free-port.js';
import type { JwtAuthenticator } from './jwt-authenticator.js';
import { writeAuthenticationConfig } from './jwt-authenticator.js';
import { renderKubeconfig, writeSecretFile } from './kubeconfig-file.js';
import { ManagedProcess } from './managed-process.js';
import type { ControlPlanePki } from './pki.js';
import { createControlPlanePki } from './pki.js';
import { waitUntilHealthy } from './readiness.js';
import { createStateDir, removeStaleStateDirs } from './state-dir.js';

export interface ControlPlaneOptions {
  /** Progress messages ("Started etcd"); defaults to silence. */
  log?: (message: string) => void;
  /** How long each component may take to become healthy. */
  startTimeoutMs?: number;
  /**
   * Runs once the apiserver answers and before the controller manager starts, with the admin
   * kubeconfig: CRDs installed here are known to the garbage collector from its first sync
   * (CRDs added later are picked up only at its next discovery resync, about 30 s on).
   */
  beforeControllers?: (kubeconfigPath: string) => Promise<void>;
  /**
   * Whether to run the kube-controller-manager (default true). A simulated guest's apiserver
   * needs none of its controllers, and each would cost CPU for the guest's lifetime (the garbage
   * collector watches every resource).
   */
  controllerManager?: boolean;
  /** JWT authenticators for outside issuers' tokens (structured authentication configuration). */
  jwtAuthenticators?: readonly JwtAuthenticator[];
}

/** What a client needs to reach a running control plane; also written as `control-plane.json`. */
export interface ControlPlaneEndpoint {
  server: string;
  kubeconfigPath: string;
  stateDir: string;
  binaries: BinaryPaths;
}

const ETCD_PORTS = 2;

/** Components in the order they depend on each other: each needs the ones before it. */
const DEPENDENCY_ORDER = ['etcd', 'kube-apiserver', 'kube-controller-manager'];

/** How long a dependent's exit waits for its dependency's, to report the cause, not the effect. */
const ROOT_CAUSE_GRACE_MS = 2_000;

/** The controllers that make the apiserver behave like a cluster's for our purposes. */
const CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  // Folds ClusterRoles labelled aggregate-to-admin/edit/view into those roles, as on a cluster.
  'clusterrole-aggregation-controller',
];

/**
 * A real Kubernetes control plane on 127.0.0.1: etcd, kube-apiserver with RBAC, and the
 * kube-controller-manager running the garbage collector and namespace controllers.
 */
export class LocalControlPlane implements ControlPlaneEndpoint {
  readonly server: string;
  readonly kubeconfigPath: string;
  readonly stateDir: string;
  readonly binaries: BinaryPaths;

  private constructor(
    endpoint: ControlPlaneEndpoint,
    private readonly processes: ManagedProcess[],
    private readonly launchApiServer: () => Promise<ManagedProcess>,
  ) {
    ({
      server: this.server,
      kubeconfigPath: this.kubeconfigPath,
      stateDir: this.stateDir,
      binaries: this.binaries,
    } = endpoint);
  }

  static async start(options: ControlPlaneOptions = {}): Promise<LocalControlPlane> {
    const log = options.log ?? ((): void => undefined);
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const binaries = await resolveBinaries(log);
    await removeStaleStateDirs();
    const stateDir = await createStateDir();
    const processes: ManagedProcess[] = [];
    try {
      const pki = createControlPlanePki();
      const files = await writePki(stateDir, pki);
      await writeFile(path.join(stateDir, 'audit-policy.yaml'), AUDIT_POLICY);
      const authentication = options.jwtAuthenticators?.length
        ? [await writeAuthenticationConfig(stateDir, options.jwtAuthenticators)]
        : [];
      const [etcdClientPort, etcdPeerPort] = await Promise.all(
        Array.from({ length: ETCD_PORTS }, freePort),
      );
      const etcd = await startEtcd(
        binaries.etcd,
        stateDir,
        { clientPort: etcdClientPort!, peerPort: etcdPeerPort! },
        timeoutMs,
      );
      processes.push(etcd);
      log(`Started etcd on 127.0.0.1:${etcdClientPort}`);

      const apiPort = await freePort();
      const server = `https://127.0.0.1:${apiPort}`;
      // The same port, certificates and etcd on every (re)start, as a restarted apiserver has.
      const launchApiServer = async (): Promise<ManagedProcess> => {
        const apiServer = ManagedProcess.start(
          'kube-apiserver',
          binaries['kube-apiserver'],
          [
            ...apiServerArgs(files, apiPort, etcdClientPort!),
            ...auditArgs(stateDir),
            ...authentication,
          ],
          path.join(stateDir, 'kube-apiserver.log'),
        );
        processes.push(apiServer);
        const probe = {
          url: `${server}/readyz`,
          ca: pki.ca.certificatePem,
          cert: pki.admin.certificatePem,
          key: pki.admin.keyPem,
        };
        await waitUntilHealthy(apiServer, probe, timeoutMs);
        return apiServer;
      };
      await launchApiServer();
      log(`Started kube-apiserver on ${server}`);

      const kubeconfigPath = path.join(stateDir, 'admin.kubeconfig');
      await writeSecretFile(
        kubeconfigPath,
        renderKubeconfig({
          server,
          caPem: pki.ca.certificatePem,
          client: pki.admin,
          user: 'admin',
        }),
      );
      const controllerManagerKubeconfig = path.join(stateDir, 'controller-manager.kubeconfig');
      await writeSecretFile(
        controllerManagerKubeconfig,
        renderKubeconfig({
          server,
          caPem: pki.ca.certificatePem,
          client: pki.controllerManager,
          user: 'kube-controller-manager',
        }),
      );

      await options.beforeControllers?.(kubeconfigPath);
      if (options.controllerManager ?? true) {
        const controllerManager = await startControllerManager(
          binaries,
          stateDir,
          files,
          controllerManagerKubeconfig,
          timeoutMs,
        );
        processes.push(controllerManager);
        log('Started kube-controller-manager');
      }

      const endpoint: ControlPlaneEndpoint = { server, kubeconfigPath, stateDir, binaries };
      const plane = new LocalControlPlane(endpoint, processes, launchApiServer);
      await writeFile(path.join(stateDir, 'control-plane.json'), JSON.stringify(endpoint, null, 2));
      return plane;
    } catch (error) {
      await stopAll(processes);
      await rm(stateDir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * Stops the kube-apiserver, runs `whileStopped`, and starts it again on the same port with the
   * same data: what clients see when an apiserver restarts or a connection breaks.
   */
  async restartApiServer(
    whileStopped: () => Promise<void> = () => Promise.resolve(),
  ): Promise<void> {
    const index = this.processes.findIndex((p) => p.name === 'kube-apiserver');
    const [stopped] = this.processes.splice(index, 1);
    await stopped!.stop();
    await whileStopped();
    await this.launchApiServer();
  }

  /** Process IDs by component, for status output. */
  get pids(): Record<string, number | undefined> {
    return Object.fromEntries(this.processes.map((p) => [p.name, p.pid]));
  }

  /**
   * Resolves when any component exits on its own, naming the root cause: a component dies
   * soon after the one it depends on (the controller manager loses its apiserver and exits),
   * and either exit may be noticed first, so a dependency that follows within a moment wins.
   */
  async firstExit(): Promise<ManagedProcess> {
    const exitOf = async (p: ManagedProcess) => (await p.exited, p);
    const first = await Promise.race(this.processes.map(exitOf));
    const dependencies = this.processes.filter(
      (p) => DEPENDENCY_ORDER.indexOf(p.name) < DEPENDENCY_ORDER.indexOf(first.name),
    );
    if (dependencies.length === 0) return first;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<ManagedProcess>((resolve) => {
      timer = setTimeout(() => resolve(first), ROOT_CAUSE_GRACE_MS);
    });
    try {
      return await Promise.race([...dependencies.map(exitOf), grace]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops every component (controller manager first, etcd last) and removes the state folder. */
  async stop(): Promise<void> {
    await stopAll(this.processes);
    await rm(this.stateDir, { recursive: true, force: true });
  }

  /**
   * Kills every component at once and removes the state folder: for a throwaway control plane
   * (a simulated guest's), which goes the way a machine that loses power does, without the
   * apiserver's graceful shutdown (about a second).
   */
  async kill(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.kill()));
    await rm(this.stateDir, { recursive: true, force: true });
  }
}

async function stopAll(processes: ManagedProcess[]): Promise<void> {
  for (const process of [...processes].reverse()) await process.stop();
}

interface PkiFiles {
  caCert: string;
  serverCert: string;
  serverKey: string;
  serviceAccountPublicKey: string;
  serviceAccountPrivateKey: string;
}

async function writePki(stateDir: string, pki: ControlPlanePki): Promise<PkiFiles> {
  const dir = path.join(stateDir, 'pki');
  await mkdir(dir, { mode: 0o700 });
  const files: PkiFiles = {
    caCert: path.join(dir, 'ca.crt'),
    serverCert: path.join(dir, 'apiserver.crt'),
    serverKey: path.join(dir, 'apiserver.key'),
    serviceAccountPublicKey: path.join(dir, 'sa.pub'),
    serviceAccountPrivateKey: path.join(dir, 'sa.key'),
  };
  await writeSecretFile(files.caCert, pki.ca.certificatePem);
  await writeSecretFile(files.serverCert, pki.apiServer.certificatePem);
  await writeSecretFile(files.serverKey, pki.apiServer.keyPem);
  await writeSecretFile(files.serviceAccountPublicKey, pki.serviceAccount.publicKeyPem);
  await writeSecretFile(files.serviceAccountPrivateKey, pki.serviceAccount.privateKeyPem);
  return files;
}

/** Starts etcd with its data and log in `stateDir` and waits until it reports healthy. */
export async function startEtcd(
  binary: string,
  stateDir: string,
  ports: { clientPort: number; peerPort: number },
  timeoutMs: number,
): Promise<ManagedProcess> {
  const clientUrl = `http://127.0.0.1:${ports.clientPort}`;
  const peerUrl = `http://127.0.0.1:${ports.peerPort}`;
  const etcd = ManagedProcess.start(
    'etcd',
    binary,
    [
      '--name=local',
      `--data-dir=${path.join(stateDir, 'etcd')}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=local=${peerUrl}`,
      // Throwaway data: skipping fsync makes every write much faster and loses nothing we keep.
      '--unsafe-no-fsync',
      '--log-level=warn',
    ],
    path.join(stateDir, 'etcd.log'),
  );
  await waitUntilHealthy(etcd, { url: `${clientUrl}/health` }, timeoutMs);
  return etcd;
}

/**
 * The audit log records what the operator's own ServiceAccounts ask for (and only that), so that a
 * test can compare the permissions they use with the ones the deploy manifests grant.
 */
export const AUDITED_GROUP = 'system:serviceaccounts:guestcluster-operator-system';

export function auditLogPath(stateDir: string): string {
  return path.join(stateDir, 'audit.log');
}

function auditArgs(stateDir: string): string[] {
  return [
    `--audit-policy-file=${path.join(stateDir, 'audit-policy.yaml')}`,
    `--audit-log-path=${auditLogPath(stateDir)}`,
    '--audit-log-format=json',
  ];
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    userGroups: ['${AUDITED_GROUP}']
  - level: None
`;

/**
 * The upstream admission plugins OpenShift's kube-apiserver turns on by default besides
 * upstream's own defaults (docs/adr/0015): OwnerReferencesPermissionEnforcement makes setting
 * blockOwnerDeletion need `update` on the owner's finalizers, and changing owner references need
 * `delete` on the object; the others are inert without their namespace annotations or kubelets.
 */
export const OPENSHIFT_ADMISSION_PLUGINS = [
  'OwnerReferencesPermissionEnforcement',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'NodeRestriction',
];

function apiServerArgs(files: PkiFiles, port: number, etcdPort: number): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${files.serverCert}`,
    `--tls-private-key-file=${files.serverKey}`,
    `--client-ca-file=${files.caCert}`,
    '--authorization-mode=RBAC',
    `--enable-admission-plugins=${OPENSHIFT_ADMISSION_PLUGINS.join(',')}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${files.serviceAccountPrivateKey}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    '--allow-privileged=true',
    '--v=1',
  ];
}

async function startControllerManager(
  binaries: BinaryPaths,
  stateDir: string,
  files: PkiFiles,
  kubeconfig: string,
  timeoutMs: number,
): Promise<ManagedProcess> {
  const port = await freePort();
  const controllerManager = ManagedProcess.start(
    'kube-controller-manager',
    binaries['kube-controller-manager'],
    [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      `--controllers=${CONTROLLERS.join(',')}`,
      // As on a real cluster, each controller acts as its own service account (system:controller:*):
      // the manager's own identity may not delete arbitrary objects, the garbage collector's may.
      '--use-service-account-credentials=true',
      `--root-ca-file=${files.caCert}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${path.join(stateDir, 'controller-manager-certs')}`,
      '--v=1',
    ],
    path.join(stateDir, 'kube-controller-manager.log'),
  );
  // /healthz is open to anyone by default; the serving certificate is self-signed.
  await waitUntilHealthy(
    controllerManager,
    { url: `https://127.0.0.1:${port}/healthz`, insecure: true },
    timeoutMs,
  );
  return controllerManager;
}
