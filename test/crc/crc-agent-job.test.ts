import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createCrcIdentity, IDENTITY_FILES } from '../../crc-agent/crc-identity.js';
import type { CrcIdentity } from '../../crc-agent/crc-identity.js';
import { JOBS } from '../../client/api/core-resources.js';
import { ROUTES } from '../../operator/api/platform-resources.js';
import { SECRETS } from '../../client/api/resources.js';
import type { Job, Secret } from '../../operator/kube/workloads.js';
import { writeSecretFile } from '../../dev/control-plane/kubeconfig-file.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { createClusterInstance } from '../support/runners/agent-run.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { VmiObject } from '../../dev/platform/host/platform-kinds.js';
import {
  DATA_VOLUMES,
  SERVICES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../dev/platform/host/platform-kinds.js';
import { createCrcPrerequisites, TEST_AGENT_IMAGE } from '../support/fixtures/crc-prerequisites.js';
import { crcApiRoute, crcApiService, crcVirtualMachine, rootDisk } from './crc-objects.js';
import { clientNodeConfig, coreApi, objectsApi } from '../support/client-node-clients.js';

const world = useWorld({ namespace: 'crc-agent-job', platform: { crc: {} } });
const { ns } = world;
const INSTANCE = 'crc-job';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'crc-agent-job-'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const decode = (data: string | undefined): string => Buffer.from(data ?? '', 'base64').toString();

/**
 * The per-instance agent account with the rights of
 * docs/reference/generated-objects.md#crc-agent-rbac (the operator makes these).
 */
async function createAgentAccount(): Promise<string> {
  const rbac = clientNodeConfig(ns.kubeConfig).makeApiClient(RbacAuthorizationV1Api);
  const role = `${ns.name}-crc-agent-instance-role`;
  await rbac.createClusterRole({
    body: {
      metadata: { name: role },
      rules: [
        {
          apiGroups: ['kubevirt.io'],
          resources: ['virtualmachineinstances'],
          verbs: ['get', 'list', 'watch'],
        },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'update'] },
      ],
    },
  });
  const account = `${INSTANCE}-crc-agent`;
  await coreApi(ns).createNamespacedServiceAccount({
    namespace: ns.name,
    body: { metadata: { name: account } },
  });
  await rbac.createNamespacedRoleBinding({
    namespace: ns.name,
    body: {
      metadata: { name: account },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: ns.name }],
    },
  });
  return account;
}

async function createIdentitySecret(identity: CrcIdentity): Promise<void> {
  await ns.api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${INSTANCE}-crc-identity`, namespace: ns.name },
    type: 'Opaque',
    data: Object.fromEntries(
      Object.entries(IDENTITY_FILES).map(([field, file]) => [
        file,
        b64(identity[field as keyof CrcIdentity]),
      ]),
    ),
  });
}

/** The agent Job (docs/reference/generated-objects.md#crc-agent-job), as the operator builds it. */
function agentJob(input: {
  vmi: VmiObject;
  host: string;
  account: string;
  pullSecret: string;
  sshKeySecret: string;
}): Job {
  const labels = {
    'opdev.io/managed-by': 'guestcluster-operator',
    'opdev.io/cluster-instance': INSTANCE,
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${INSTANCE}-crc-agent-${input.vmi.metadata!.uid}`,
      namespace: ns.name,
      labels,
    },
    spec: {
      backoffLimit: 2,
      activeDeadlineSeconds: 2700,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: input.account,
          containers: [
            {
              name: 'crc-agent',
              image: TEST_AGENT_IMAGE,
              env: [
                { name: 'INSTANCE_NAME', value: INSTANCE },
                { name: 'INSTANCE_NAMESPACE', value: ns.name },
                { name: 'CRC_SSH_HOST', value: input.vmi.status!.interfaces![0]!.ipAddress! },
                { name: 'CRC_VMI_UID', value: input.vmi.metadata!.uid! },
                { name: 'CRC_SSH_KEY_PATH', value: '/etc/crc-agent/ssh/id_ecdsa' },
                { name: 'CRC_IDENTITY_PATH', value: '/etc/crc-agent/identity' },
                {
                  name: 'PULL_SECRET_PATH',
                  value: '/etc/crc-agent/pull-secret/.dockerconfigjson',
                },
                { name: 'CRC_API_HOSTNAME', value: input.host },
              ],
              volumeMounts: [
                { name: 'pull-secret', mountPath: '/etc/crc-agent/pull-secret', readOnly: true },
                { name: 'bundle-ssh-key', mountPath: '/etc/crc-agent/ssh', readOnly: true },
                { name: 'identity', mountPath: '/etc/crc-agent/identity', readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'pull-secret', secret: { secretName: input.pullSecret } },
            {
              name: 'bundle-ssh-key',
              secret: {
                secretName: input.sshKeySecret,
                items: [{ key: 'id_ecdsa', path: 'id_ecdsa' }],
              },
            },
            { name: 'identity', secret: { secretName: `${INSTANCE}-crc-identity` } },
          ],
        },
      },
    },
  };
}

describe('the crc-agent Job on the simulated platform', () => {
  test('finishes the VMI guest and publishes a handoff whose kubeconfig works through the router', async () => {
    await createClusterInstance(objectsApi(ns), ns.name, INSTANCE);
    await ns.api.create(
      DATA_VOLUMES,
      rootDisk(ns.name, INSTANCE, { http: { url: 'https://mirror.example.test/crc.qcow2' } }),
    );
    await ns.api.create(VIRTUAL_MACHINES, crcVirtualMachine(ns.name, INSTANCE));
    const host = `api-${INSTANCE}-0123456789abcdef.${world.platform.domain}`;
    await ns.api.create(SERVICES, crcApiService(ns.name, INSTANCE));
    await ns.api.create(ROUTES, crcApiRoute(ns.name, INSTANCE, host));
    const { pullSecret, sshKeySecret } = await createCrcPrerequisites(
      world.platform,
      ns.api,
      ns.name,
    );
    await createIdentitySecret(createCrcIdentity(host));
    const account = await createAgentAccount();
    const vmi = await waitFor<VmiObject>(ns.kubeConfig, {
      type: VIRTUAL_MACHINE_INSTANCES,
      namespace: ns.name,
      name: INSTANCE,
      until: (v) => v?.status?.phase === 'Running' && !!v.status.interfaces?.[0]?.ipAddress,
      timeoutMs: 90_000,
    });

    const job = await ns.api.create(
      JOBS,
      agentJob({ vmi: vmi!, host, account, pullSecret, sshKeySecret }),
    );
    const done = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: job.metadata!.name!,
      until: (j) =>
        !!j?.status?.conditions?.some(
          (c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True',
        ),
      timeoutMs: 110_000,
    });
    expect(world.platform.runner.problems).toEqual([]);
    expect(done!.status!.conditions!.map((c) => c.type)).toContain('Complete');

    const handoff = await ns.api.get<Secret>(
      SECRETS,
      `${INSTANCE}-crc-raw-kubeconfig-${vmi!.metadata!.uid}`,
      ns.name,
    );
    expect(decode(handoff.data?.vmiUID)).toBe(vmi!.metadata!.uid);
    expect(decode(handoff.data?.ocpVersion)).toBe('4.16.0');
    const kubeconfig = path.join(dir, 'handoff.kubeconfig');
    await writeSecretFile(kubeconfig, decode(handoff.data?.kubeconfig));
    expect(decode(handoff.data?.kubeconfig)).toContain(`server: https://${host}:443`);

    // The Route host resolves to the router (no DNS here): connect there, verify as the host.
    const router = world.platform.router.address;
    const readyz = await runCommand(testEnv('kubectl'), [
      '--kubeconfig',
      kubeconfig,
      '--server',
      `https://${router.host}:${router.port}`,
      '--tls-server-name',
      host,
      'get',
      '--raw',
      '/readyz',
    ]);
    expect(readyz.stdout.trim()).toBe('ok');
  }, 240_000);
});
