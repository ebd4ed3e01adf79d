import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type {
  V1ClusterRole,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { parse, stringify } from 'yaml';
import { createCrcIdentity } from '../../crc-agent/crc-identity.js';
import { fingerprint } from '../../crc-agent/host-key.js';
import { generateEd25519KeyPair, publicKeyLine } from '../../crc-agent/ssh-key.js';
import type { ClusterInstance } from '../../client/api/resources.js';
import { INSTANCES } from '../../client/api/resources.js';
import {
  buildAgentBinding,
  buildAgentClusterRole,
  buildAgentServiceAccount,
  buildHandoffBinding,
  buildHandoffRole,
  buildHandoffSecret,
} from '../../operator/controllers/clusterinstance/crc/crc-agent-builders.js';
import { agentAccountName } from '../../operator/controllers/clusterinstance/crc/crc-naming.js';
import type { CrcIdentity } from '../../crc-agent/crc-identity.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import type { Stored } from '../../operator/kube/objects.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { sshLogin } from '../../dev/guest/ssh-login.js';
import { testEnv } from '../support/test-env.js';
import { GuestApiServer } from '../../dev/guest/guest-api.js';
import { AUTHORIZED_KEYS } from '../../dev/guest/guest-machine.js';
import { SimulatedCrcGuest } from '../../dev/guest/simulated-crc-guest.js';
import type { AgentFiles, AgentOutput } from '../support/runners/agent-run.js';
import {
  createClusterInstance,
  createRunningVmi,
  runAgentProcess,
  secretFragments,
  writeAgentFiles,
  writeTempFile,
} from '../support/runners/agent-run.js';
import { clientNodeConfig, coreApi, objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'crc-agent' });
const INSTANCE = 'crc-e2e';
const API_HOSTNAME = 'api-crc-e2e-0123456789abcdef.apps.mgmt.example.test';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"c2VjcmV0LXVzZXI6c2VjcmV0LXRva2VuLXZhbHVl"}}}';
const ALICE_PASSWORD = 'alice-password';
const OLD_KUBEADMIN = `kubeadmin:${bcrypt.hashSync('old-kubeadmin', 4)}`;

let guestApi: GuestApiServer;
let guest: SimulatedCrcGuest;
let identity: CrcIdentity;
let files: AgentFiles;
let vmiUid: string;
let instanceUid: string;
let agentKubeconfig: string;
let first: AgentOutput;
/** The instance's own SSH key, as the operator mints it (`<instance>-crc-ssh-key`). */
let instanceKey: { private: string; public: string };
let instanceKeyPath: string;

const b64decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString();

/** The instance as the operator's builders need it. */
function clusterInstance(): Stored<ClusterInstance> {
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: { name: INSTANCE, namespace: ns.name, uid: instanceUid, resourceVersion: '1' },
    spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
  };
}

/**
 * A kubeconfig that acts as the agent's per-instance ServiceAccount with what the operator
 * grants it (ADR 0010): the shared ClusterRole (VMI reads) and a Role for its one handoff
 * Secret, which the operator has made, empty, before the agent runs.
 */
async function agentServiceAccountKubeconfig(): Promise<string> {
  const rbac = clientNodeConfig(ns.kubeConfig).makeApiClient(RbacAuthorizationV1Api);
  const instance = clusterInstance();
  const roleName = `${ns.name}-crc-agent-instance-role`;
  await rbac.createClusterRole({ body: buildAgentClusterRole(roleName) as V1ClusterRole });
  await coreApi(ns).createNamespacedServiceAccount({
    namespace: ns.name,
    body: buildAgentServiceAccount(instance) as V1ServiceAccount,
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: buildAgentBinding(instance, roleName) as V1RoleBinding,
  });
  await coreApi(ns).createNamespacedSecret({
    namespace: ns.name,
    body: buildHandoffSecret(instance, vmiUid) as V1Secret,
  });
  await rbac.createNamespacedRole({
    namespace: ns.name,
    body: buildHandoffRole(instance, vmiUid) as V1Role,
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: buildHandoffBinding(instance) as V1RoleBinding,
  });
  const account = agentAccountName(INSTANCE);
  const token = await coreApi(ns).createNamespacedServiceAccountToken({
    namespace: ns.name,
    name: account,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = ns.kubeConfig.getCurrentCluster();
  return writeTempFile(
    files.dir,
    'agent.kubeconfig',
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'mgmt',
          cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData },
        },
      ],
      users: [{ name: account, user: { token: token.status!.token } }],
      contexts: [{ name: 'mgmt', context: { cluster: 'mgmt', user: account } }],
      'current-context': 'mgmt',
    }),
  );
}

function agentEnv(): Record<string, string> {
  return {
    CRC_INSTANCE_SSH_KEY_PATH: instanceKeyPath,
    INSTANCE_NAME: INSTANCE,
    INSTANCE_NAMESPACE: ns.name,
    INSTANCE_UID: instanceUid,
    CRC_SSH_HOST: '127.0.0.1',
    CRC_SSH_PORT: String(guest.ssh.port),
    CRC_VMI_UID: vmiUid,
    CRC_SSH_KEY_PATH: files.sshKeyPath,
    CRC_IDENTITY_PATH: files.identityPath,
    PULL_SECRET_PATH: files.pullSecretPath,
    CRC_API_HOSTNAME: API_HOSTNAME,
    KUBECONFIG: agentKubeconfig,
  };
}

async function readHandoff(): Promise<V1Secret> {
  return coreApi(ns).readNamespacedSecret({
    namespace: ns.name,
    name: `${INSTANCE}-crc-raw-kubeconfig-${vmiUid}`,
  });
}

async function guestSecret(name: string): Promise<V1Secret> {
  return guestApi.admin.json<V1Secret>({
    method: 'GET',
    path: `/api/v1/namespaces/openshift-config/secrets/${name}`,
  });
}

beforeAll(async () => {
  guestApi = await GuestApiServer.start();
  guest = await SimulatedCrcGuest.start({
    api: guestApi,
    seed: {
      htpasswd: `alice:${bcrypt.hashSync(ALICE_PASSWORD, 4)}\n${OLD_KUBEADMIN}\n`,
    },
  });
  identity = createCrcIdentity(API_HOSTNAME);
  files = await writeAgentFiles({
    bundleKey: guest.bundlePrivateKey,
    identity,
    pullSecret: PULL_SECRET,
  });
  instanceUid = await createClusterInstance(objectsApi(ns), ns.name, INSTANCE);
  vmiUid = await createRunningVmi(objectsApi(ns), ns.name, INSTANCE);
  agentKubeconfig = await agentServiceAccountKubeconfig();
  instanceKey = generateEd25519KeyPair();
  instanceKeyPath = await writeTempFile(files.dir, 'id_ed25519', instanceKey.private);
  first = await runAgentProcess(agentEnv());
}, 300_000);

afterAll(async () => {
  await guest?.stop();
  await guestApi?.stop();
  await files?.remove();
  await clientNodeConfig(ns.kubeConfig)
    .makeApiClient(RbacAuthorizationV1Api)
    .deleteClusterRole({ name: `${ns.name}-crc-agent-instance-role` })
    .catch(() => undefined);
});

describe('crc-agent against a simulated CRC guest', () => {
  test('publishes the handoff Secret with the contract keys, labels and owner', async () => {
    expect(first.output).toContain('Published handoff Secret');
    expect(first.exitCode).toBe(0);
    const secret = await readHandoff();
    expect(secret.type).toBe('Opaque');
    expect(secret.metadata?.labels).toEqual({
      'opdev.io/managed-by': 'crc-agent',
      'opdev.io/cluster-instance': INSTANCE,
    });
    // The operator made the Secret and its owner reference; the agent only filled in the data.
    expect(secret.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'guestcluster.opdev.io/v1alpha1',
        kind: 'ClusterInstance',
        name: INSTANCE,
        uid: instanceUid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(Object.keys(secret.data ?? {}).sort()).toEqual([
      'kubeconfig',
      'ocpVersion',
      'sshHostKey',
      'vmiUID',
    ]);
    expect(b64decode(secret.data?.ocpVersion)).toBe('4.16.0');
    expect(b64decode(secret.data?.vmiUID)).toBe(vmiUid);
    const kubeconfig = parse(b64decode(secret.data?.kubeconfig)) as {
      clusters: { cluster: Record<string, unknown> }[];
      users: { user: Record<string, string> }[];
      'current-context': string;
    };
    expect(kubeconfig.clusters).toHaveLength(1);
    expect(kubeconfig.clusters[0]!.cluster).toEqual({
      server: `https://${API_HOSTNAME}:443`,
      'certificate-authority-data': Buffer.from(identity.servingCertPem).toString('base64'),
    });
    expect(b64decode(kubeconfig.users[0]!.user['client-certificate-data'])).toBe(
      identity.clientCertPem,
    );
    expect(kubeconfig['current-context']).toBe('admin');
  });

  test('kubectl with the published kubeconfig reaches the guest API through its Route host name', async () => {
    const secret = await readHandoff();
    const kubeconfig = parse(b64decode(secret.data?.kubeconfig)) as {
      clusters: { cluster: Record<string, unknown> }[];
    };
    // The Route host resolves to the router; here the guest's API front stands on 127.0.0.1.
    kubeconfig.clusters[0]!.cluster.server = `https://127.0.0.1:${guest.front!.port}`;
    kubeconfig.clusters[0]!.cluster['tls-server-name'] = API_HOSTNAME;
    const file = await writeTempFile(files.dir, 'published.kubeconfig', stringify(kubeconfig));
    const result = await runCommand(testEnv('kubectl'), [
      '--kubeconfig',
      file,
      'get',
      'clusterversion',
      'version',
      '-o',
      'jsonpath={.status.desired.version}',
    ]);
    expect(result.stdout).toBe('4.16.0');
  });

  test('changes the guest the way CRC needs', async () => {
    const keys = (guest.machine.files.get(AUTHORIZED_KEYS) ?? '').split('\n').filter(Boolean);
    // The instance's key replaced the bundle key, which every guest of the bundle shares.
    expect(keys).toEqual([publicKeyLine(instanceKey.private)]);
    expect(guest.machine.activeUnits).toEqual(
      new Set(['dnsmasq', 'ovs-configuration.service', 'NetworkManager.service', 'kubelet']),
    );
    expect(guest.machine.rootGrown).toBe(true);
    const caBundle = await guestApi.admin.json<{ data: Record<string, string> }>({
      method: 'GET',
      path: '/api/v1/namespaces/openshift-config/configmaps/admin-kubeconfig-client-ca',
    });
    expect(caBundle.data['ca-bundle.crt']).toBe(identity.clientCaPem);
    expect(b64decode((await guestSecret('pull-secret')).data?.['.dockerconfigjson'])).toBe(
      PULL_SECRET,
    );
    const serving = await guestSecret('external-api-serving-cert');
    expect(serving.type).toBe('kubernetes.io/tls');
    expect(b64decode(serving.data?.['tls.crt'])).toBe(identity.servingCertPem);
    const apiServer = await guestApi.admin.json<{ spec: { servingCerts?: unknown } }>({
      method: 'GET',
      path: '/apis/config.openshift.io/v1/apiservers/cluster',
    });
    // (The real APIServer CRD also defaults spec.audit.)
    expect(apiServer.spec.servingCerts).toEqual({
      namedCertificates: [
        { names: [API_HOSTNAME], servingCertificate: { name: 'external-api-serving-cert' } },
      ],
    });
    const csrs = await guestApi.admin.json<{
      items: {
        metadata: { name: string };
        status?: { conditions?: { type: string; reason?: string }[] };
      }[];
    }>({
      method: 'GET',
      path: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
    });
    const conditions = Object.fromEntries(
      csrs.items.map((csr) => [csr.metadata.name, csr.status?.conditions ?? []]),
    );
    expect(conditions['csr-kubelet-client']).toEqual([
      expect.objectContaining({ type: 'Approved', reason: 'CRCAgentApproval' }),
    ]);
    expect(conditions['csr-other-signer']).toEqual([]);
  });

  test('the htpasswd merge keeps other users and replaces kubeadmin and developer', async () => {
    const lines = b64decode((await guestSecret('htpass-secret')).data?.htpasswd).split('\n');
    const hash = (user: string): string[] =>
      lines
        .filter((line) => line.startsWith(`${user}:`))
        .map((line) => line.slice(user.length + 1));
    expect(lines[0]!.startsWith('alice:')).toBe(true);
    expect(bcrypt.compareSync(ALICE_PASSWORD, hash('alice')[0]!)).toBe(true);
    expect(hash('developer')).toHaveLength(1);
    expect(bcrypt.compareSync('developer', hash('developer')[0]!)).toBe(true);
    expect(hash('kubeadmin')).toHaveLength(1);
    expect(lines).not.toContain(OLD_KUBEADMIN);
    expect(lines).toHaveLength(3);
  });

  test('no secret value appears in the agent output', async () => {
    const kubeconfig = b64decode((await readHandoff()).data?.kubeconfig);
    const leaks = secretFragments(
      identity.clientKeyPem,
      identity.servingKeyPem,
      guest.bundlePrivateKey,
      instanceKey.private,
      guest.pki.admin.keyPem,
      PULL_SECRET,
      kubeconfig,
    ).filter((fragment) => first.output.includes(fragment));
    expect(leaks).toEqual([]);
    expect(first.output).not.toMatch(/PRIVATE KEY/);
    // The kubeadmin password has this shape and must never be printed.
    expect(first.output).not.toMatch(
      /\b[A-Za-z0-9]{5}-[A-Za-z0-9]{5}-[A-Za-z0-9]{5}-[A-Za-z0-9]{5}\b/,
    );
  });

  test("the guest's sshd refuses the bundle key after hand-off and takes the instance key", async () => {
    const login = { host: '127.0.0.1', port: guest.ssh.port, username: 'core' };
    await expect(sshLogin({ ...login, privateKey: guest.bundlePrivateKey })).rejects.toThrow(
      /All configured authentication methods failed/,
    );
    await expect(sshLogin({ ...login, privateKey: instanceKey.private })).resolves.toBe(
      guest.ssh.hostKey,
    );
  });

  test('records the host key of first contact in the handoff Secret', async () => {
    expect(first.logs.map((l) => l.msg)).toContain('Recorded the guest SSH host key');
    expect(b64decode((await readHandoff()).data?.sshHostKey)).toBe(guest.ssh.hostKey);
  });

  test('a retried run logs in with the instance key and leaves the handoff as it is', async () => {
    const before = await readHandoff();
    const again = await runAgentProcess(agentEnv());
    expect(again.output).toContain('Connected to the guest with the instance key');
    expect(again.output).toContain('"outcome":"unchanged"');
    expect(again.exitCode).toBe(0);
    const after = await readHandoff();
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  test('refuses a guest whose host key is not the one recorded for the VMI', async () => {
    // What the operator records in the instance's status from the handoff Secret.
    await kubectl([
      '-n',
      ns.name,
      'patch',
      'clusterinstances.guestcluster.opdev.io',
      INSTANCE,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({
        status: { crc: { sshHostKey: { vmiUID: vmiUid, publicKey: guest.ssh.hostKey } } },
      }),
    ]);
    const before = await readHandoff();
    const commands = guest.machine.commands.length;
    await guest.replaceHostKey();
    const refused = await runAgentProcess(agentEnv());
    expect(refused.exitCode).toBe(1);
    expect(refused.output).toContain(
      `refused the SSH host key of 127.0.0.1:${guest.ssh.port} (${fingerprint(guest.ssh.hostKey)}): it is not the host key recorded in the ClusterInstance status for VMI ${vmiUid}`,
    );
    // Nothing was run on, or taken from, whatever answered.
    expect(guest.machine.commands).toHaveLength(commands);
    expect((await readHandoff()).metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });
});
