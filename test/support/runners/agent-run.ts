import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import type { AdminAccess } from '../../../dev/support/admin-access.js';
import { AGENT_ENV } from '../../../contracts/agent-job.js';
import { writeSecretFile } from '../../../dev/control-plane/kubeconfig-file.js';
import { projectRoot } from '../../../dev/control-plane/project-root.js';
import { kubectl } from '../kubectl.js';
import type { CrcIdentity } from '../../../crc-agent/crc-identity.js';
import { createCrcIdentity, IDENTITY_FILES } from '../../../crc-agent/crc-identity.js';
import { testEnv } from '../test-env.js';
import { SimulatedCrcGuest } from '../../../dev/guest/simulated-crc-guest.js';
import type { SimulatedGuestOptions } from '../../../dev/guest/simulated-crc-guest.js';
import { objectsApi } from '../client-node-clients.js';

export interface AgentOutput {
  exitCode: number | null;
  /** stdout and stderr together. */
  output: string;
  /** The JSON log lines. */
  logs: { level?: string; msg?: string; [key: string]: unknown }[];
}

/** Runs the built agent (`dist/crc-agent/main.js`) as its own process with only the given env. */
export function runAgentProcess(
  env: Record<string, string>,
  args: string[] = [],
): Promise<AgentOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(projectRoot(), 'dist/crc-agent/main.js'), ...args],
      {
        env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => {
      const output = Buffer.concat(chunks).toString('utf8');
      const logs = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as AgentOutput['logs'][number]);
      resolve({ exitCode, output, logs });
    });
  });
}

/** The mounted files of an agent Job, in a temporary folder (all 0600). */
export interface AgentFiles {
  dir: string;
  sshKeyPath: string;
  pullSecretPath: string;
  identityPath: string;
  remove(): Promise<void>;
}

export async function writeAgentFiles(input: {
  bundleKey: string;
  identity: CrcIdentity;
  pullSecret: string;
}): Promise<AgentFiles> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'crc-agent-'));
  const identityPath = path.join(dir, 'identity');
  await mkdir(identityPath, { mode: 0o700 });
  for (const [field, file] of Object.entries(IDENTITY_FILES))
    await writeSecretFile(
      path.join(identityPath, file),
      input.identity[field as keyof CrcIdentity],
    );
  const sshKeyPath = path.join(dir, 'id_ecdsa');
  await writeSecretFile(sshKeyPath, input.bundleKey);
  const pullSecretPath = path.join(dir, '.dockerconfigjson');
  await writeSecretFile(pullSecretPath, input.pullSecret);
  return {
    dir,
    sshKeyPath,
    pullSecretPath,
    identityPath,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Creates a VMI with the status KubeVirt sets once it runs, and returns its UID. */
export async function createRunningVmi(
  objects: KubernetesObjectApi,
  namespace: string,
  name: string,
  ip = '127.0.0.1',
): Promise<string> {
  const vmi = await objects.create({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace },
    spec: { domain: { devices: {} } },
  } as KubernetesObject);
  await setVmiStatus(namespace, name, {
    phase: 'Running',
    interfaces: [{ name: 'default', ipAddress: ip, ipAddresses: [ip] }],
  });
  return vmi.metadata!.uid!;
}

/** Sets a VMI's status as KubeVirt does: with the VMI itself (its CRD has no status subresource). */
export async function setVmiStatus(namespace: string, name: string, status: object): Promise<void> {
  await kubectl([
    '-n',
    namespace,
    'patch',
    'virtualmachineinstances.kubevirt.io',
    name,
    '--type=merge',
    '-p',
    JSON.stringify({ status }),
  ]);
}

/** A ClusterInstance to own the handoff Secret (the garbage collector removes orphans). */
export async function createClusterInstance(
  objects: KubernetesObjectApi,
  namespace: string,
  name: string,
): Promise<string> {
  const instance = await objects.create({
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'ClusterInstance',
    metadata: { name, namespace },
    spec: {
      type: 'crc',
      template: {
        crcVersion: '4.16.0',
        ocpVersion: '4.16.0',
        memory: '16Gi',
        cores: 4,
        rootVolumeSize: '80Gi',
      },
    },
  } as KubernetesObject);
  return instance.metadata!.uid!;
}

/**
 * Pieces of each secret value, raw and base64-encoded: long enough to be unique, short enough to
 * catch a partial leak. PEM armour lines and base64 of the armour are left out (they are the same
 * for every key).
 */
export function secretFragments(...secrets: string[]): string[] {
  const fragments: string[] = [];
  for (const secret of secrets) {
    for (const line of secret.split('\n')) {
      const body = line.trim();
      if (body.length >= 24 && !body.startsWith('-----')) fragments.push(body.slice(0, 24));
    }
    const encoded = Buffer.from(secret).toString('base64');
    for (let offset = 96; offset + 24 <= encoded.length - 64; offset += 200)
      fragments.push(encoded.slice(offset, offset + 24));
  }
  return fragments;
}

export async function writeTempFile(dir: string, name: string, content: string): Promise<string> {
  const file = path.join(dir, name);
  await writeSecretFile(file, content);
  return file;
}

/** One agent run's surroundings: a simulated guest, mounted files, a Running VMI, and the env. */
export interface RunSetup {
  guest: SimulatedCrcGuest;
  files: AgentFiles;
  identity: CrcIdentity;
  vmiUid: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export const TEST_API_HOSTNAME = 'api-crc-test-0123456789abcdef.apps.mgmt.example.test';
export const TEST_PULL_SECRET =
  '{"auths":{"quay.io":{"auth":"cHVsbC11c2VyOnB1bGwtdG9rZW4tdmFsdWU="}}}';

/** Sets up a run without a ClusterInstance (legacy run: no INSTANCE_UID) against the admin kubeconfig. */
export async function prepareRun(
  namespace: { name: string; kubeConfig: AdminAccess },
  instanceName: string,
  guestOptions: SimulatedGuestOptions = {},
): Promise<RunSetup> {
  const guest = await SimulatedCrcGuest.start(guestOptions);
  const identity = createCrcIdentity(TEST_API_HOSTNAME);
  const files = await writeAgentFiles({
    bundleKey: guest.bundlePrivateKey,
    identity,
    pullSecret: TEST_PULL_SECRET,
  });
  const vmiUid = await createRunningVmi(objectsApi(namespace), namespace.name, instanceName);
  return {
    guest,
    files,
    identity,
    vmiUid,
    env: {
      [AGENT_ENV.instanceName]: instanceName,
      [AGENT_ENV.instanceNamespace]: namespace.name,
      [AGENT_ENV.sshHost]: '127.0.0.1',
      [AGENT_ENV.sshPort]: String(guest.ssh.port),
      [AGENT_ENV.vmiUid]: vmiUid,
      [AGENT_ENV.sshKeyPath]: files.sshKeyPath,
      [AGENT_ENV.identityPath]: files.identityPath,
      [AGENT_ENV.pullSecretPath]: files.pullSecretPath,
      [AGENT_ENV.apiHostname]: TEST_API_HOSTNAME,
      KUBECONFIG: testEnv('kubeconfig'),
    },
    cleanup: async () => {
      await guest.stop();
      await files.remove();
    },
  };
}

/** The message of the agent's final error line (the one that says what to fix). */
export function failureLine(run: AgentOutput): string {
  const line = run.logs.find((entry) => entry.level === 'error');
  return line?.msg ?? '';
}
