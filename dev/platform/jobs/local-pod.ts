import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AdminAccess } from '../../support/admin-access.js';
import { CONFIG_MAPS, PODS } from '../../../client/api/core-resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type {
  ConfigMap,
  Container,
  ContainerState,
  EnvVar,
  Pod,
  Secret,
} from '../../../operator/kube/workloads.js';
import { writeSecretFile } from '../../control-plane/kubeconfig-file.js';
import { writePodKubeconfig } from './pod-credentials.js';
import type { SimulatedStorage } from '../storage/simulated-storage.js';

/** How an image runs here: the program and the arguments of its entrypoint. */
export interface LocalImage {
  command: string;
  args: string[];
}

export interface LocalPodContext {
  client: ApiClient;
  /** Admin access, to mint the pod's ServiceAccount token. */
  kubeConfig: AdminAccess;
  storage: SimulatedStorage;
  images: Record<string, LocalImage>;
  /** A folder of the pod's own: secret volumes, termination message, credentials, log. */
  dir: string;
  /** Aborting kills the container (the pod was deleted). */
  signal: AbortSignal;
  /**
   * Variables the simulated platform adds to the container's environment, given the pod's own
   * (resolved) ones; the pod's own win. What a real node provides without the pod asking, such as
   * how to reach a simulated guest from this host, comes in this way, so the operator stays unaware.
   */
  platformEnv?: (env: Readonly<Record<string, string>>) => Record<string, string>;
}

/** How the container ended. */
export interface ContainerResult {
  exitCode: number;
  reason: string;
  message: string;
}

/** What a kubelet keeps of a failed container's log when it wrote no termination message. */
const LOG_TAIL_LINES = 80;
const LOG_TAIL_BYTES = 2048;
const MESSAGE_LIMIT = 4096;
const KILL_GRACE_MS = 5000;

const timestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Plays the kubelet for a one-container pod: mounts its volumes (PVCs as their simulated-storage
 * folders once Bound, Secrets as 0600 files), resolves its environment, runs the image's program
 * as a local process with the pod's ServiceAccount credentials, and reports Running and then the
 * termination (exit code, message from the termination-message file or the log tail) in the pod's
 * status. Paths under mount points in env values and args point into the local folders.
 */
export async function runLocalPod(pod: Pod, context: LocalPodContext): Promise<ContainerResult> {
  const [container] = pod.spec.containers;
  if (!container || pod.spec.containers.length > 1)
    throw new Error(`pod ${pod.metadata!.name}: only one-container pods can run here`);
  const image = context.images[container.image];
  if (!image)
    throw new Error(`pod ${pod.metadata!.name}: no local program for image ${container.image}`);
  if (container.command)
    throw new Error(`pod ${pod.metadata!.name}: container command overrides are not supported`);
  const namespace = pod.metadata!.namespace!;
  const mounts = await mountVolumes(pod, container, context);
  const terminationPath = container.terminationMessagePath ?? '/dev/termination-log';
  const terminationFile = path.join(context.dir, 'termination-log');
  await writeFile(terminationFile, '');
  const local = localPaths([...mounts, [terminationPath, terminationFile]]);
  const own = await resolveEnv(pod, container.env ?? [], context.client);
  const env = { ...context.platformEnv?.(own), ...own };
  // A pod that mounts no token gets no credentials, as a kubelet gives it none.
  const kubeconfig =
    pod.spec.automountServiceAccountToken === false
      ? undefined
      : path.join(context.dir, 'kubeconfig');
  if (kubeconfig)
    await writePodKubeconfig(
      context.kubeConfig,
      namespace,
      pod.spec.serviceAccountName || 'default',
      kubeconfig,
    );
  const startedAt = timestamp();
  await patchPodStatus(context.client, pod, 'Running', { running: { startedAt } }, startedAt);
  const output = await runProcess(
    image.command,
    [...image.args, ...(container.args ?? []).map(local)],
    {
      PATH: process.env.PATH ?? '',
      HOME: context.dir,
      ...Object.fromEntries(Object.entries(env).map(([name, value]) => [name, local(value)])),
      ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
    },
    context,
  );
  const result = await containerResult(output, terminationFile, container);
  // Also after a kill: a terminated pod is removed at once when it is deleted.
  await patchPodStatus(
    context.client,
    pod,
    result.exitCode === 0 ? 'Succeeded' : 'Failed',
    { terminated: { ...result, startedAt, finishedAt: timestamp() } },
    startedAt,
  ).catch((error: unknown) => {
    if (!isNotFound(error)) throw error;
  });
  return result;
}

/** Every volume mount as [mount path, local folder]. */
async function mountVolumes(
  pod: Pod,
  container: Container,
  context: LocalPodContext,
): Promise<[string, string][]> {
  const namespace = pod.metadata!.namespace!;
  const folders = new Map<string, string>();
  for (const volume of pod.spec.volumes ?? []) {
    if (volume.persistentVolumeClaim) {
      const claim = volume.persistentVolumeClaim.claimName;
      folders.set(volume.name, await context.storage.whenBound(namespace, claim, context.signal));
    } else if (volume.secret) {
      const secret = await context.client.get<Secret>(SECRETS, volume.secret.secretName, namespace);
      const folder = path.join(context.dir, 'volumes', volume.name);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      const items =
        volume.secret.items ?? Object.keys(secret.data ?? {}).map((key) => ({ key, path: key }));
      for (const item of items) {
        const value = secret.data?.[item.key];
        if (value === undefined) continue;
        await mkdir(path.dirname(path.join(folder, item.path)), { recursive: true, mode: 0o700 });
        await writeSecretFile(
          path.join(folder, item.path),
          Buffer.from(value, 'base64').toString('utf8'),
        );
      }
      folders.set(volume.name, folder);
    }
  }
  return (container.volumeMounts ?? []).flatMap((mount): [string, string][] => {
    const folder = folders.get(mount.name);
    return folder ? [[mount.mountPath, folder]] : [];
  });
}

/** Rewrites a value naming a path under a mount point (or the termination-message path) to the local file. */
function localPaths(mounts: [string, string][]): (value: string) => string {
  const longestFirst = [...mounts].sort((a, b) => b[0].length - a[0].length);
  return (value) => {
    for (const [mountPath, folder] of longestFirst) {
      const prefix = mountPath.replace(/\/+$/, '');
      if (value === prefix) return folder;
      if (value.startsWith(`${prefix}/`)) return folder + value.slice(prefix.length);
    }
    return value;
  };
}

function fieldValue(pod: Pod, fieldPath: string): string {
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.serviceAccountName': pod.spec.serviceAccountName,
    'spec.nodeName': pod.spec.nodeName,
    'status.podIP': '127.0.0.1',
    'status.hostIP': '127.0.0.1',
  };
  const label = /^metadata\.labels\['(.+)'\]$/.exec(fieldPath);
  if (label) return pod.metadata?.labels?.[label[1]!] ?? '';
  if (!(fieldPath in fields)) throw new Error(`unsupported fieldRef ${fieldPath}`);
  return fields[fieldPath] ?? '';
}

/** The container's environment, with fieldRef, secretKeyRef and configMapKeyRef resolved as a kubelet does. */
async function resolveEnv(
  pod: Pod,
  vars: readonly EnvVar[],
  client: ApiClient,
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const variable of vars) {
    const value = await envValue(pod, variable, client);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** One variable's value; undefined when an optional reference is missing. */
async function envValue(
  pod: Pod,
  variable: EnvVar,
  client: ApiClient,
): Promise<string | undefined> {
  const namespace = pod.metadata!.namespace!;
  const from = variable.valueFrom;
  if (from?.fieldRef) return fieldValue(pod, from.fieldRef.fieldPath);
  const ref = from?.secretKeyRef ?? from?.configMapKeyRef;
  if (!ref) return variable.value ?? '';
  const value = from?.secretKeyRef
    ? decode((await client.get<Secret>(SECRETS, ref.name, namespace)).data?.[ref.key])
    : (await client.get<ConfigMap>(CONFIG_MAPS, ref.name, namespace)).data?.[ref.key];
  if (value === undefined && !ref.optional)
    throw new Error(`${variable.name}: ${ref.name} has no key ${ref.key}`);
  return value;
}

const decode = (base64: string | undefined): string | undefined =>
  base64 === undefined ? undefined : Buffer.from(base64, 'base64').toString('utf8');

interface ProcessOutput {
  exitCode: number;
  signal: string | null;
  log: string;
}

function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  context: LocalPodContext,
): Promise<ProcessOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      cwd: context.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    let killTimer: NodeJS.Timeout | undefined;
    const kill = (): void => {
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    if (context.signal.aborted) kill();
    else context.signal.addEventListener('abort', kill, { once: true });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killTimer);
      context.signal.removeEventListener('abort', kill);
      const log = Buffer.concat(chunks).toString('utf8');
      void writeFile(path.join(context.dir, 'container.log'), log).then(
        () => resolve({ exitCode: code ?? (signal === 'SIGTERM' ? 143 : 137), signal, log }),
        reject,
      );
    });
  });
}

async function containerResult(
  output: ProcessOutput,
  terminationFile: string,
  container: Container,
): Promise<ContainerResult> {
  let message = (await readFile(terminationFile, 'utf8')).slice(0, MESSAGE_LIMIT);
  if (
    !message &&
    output.exitCode !== 0 &&
    container.terminationMessagePolicy === 'FallbackToLogsOnError'
  ) {
    message = output.log.split('\n').slice(-LOG_TAIL_LINES).join('\n').slice(-LOG_TAIL_BYTES);
  }
  const reason = output.exitCode === 0 ? 'Completed' : output.signal ? 'Killed' : 'Error';
  return { exitCode: output.exitCode, reason, message };
}

async function patchPodStatus(
  client: ApiClient,
  pod: Pod,
  phase: string,
  state: ContainerState,
  startedAt: string,
): Promise<void> {
  const container = pod.spec.containers[0]!;
  const running = state.running !== undefined;
  await client.patch(
    PODS,
    { name: pod.metadata!.name!, namespace: pod.metadata!.namespace, subresource: 'status' },
    {
      status: {
        phase,
        startTime: startedAt,
        podIP: '127.0.0.1',
        hostIP: '127.0.0.1',
        conditions: [
          { type: 'Ready', status: running ? 'True' : 'False', lastTransitionTime: timestamp() },
        ],
        containerStatuses: [
          {
            name: container.name,
            image: container.image,
            imageID: `local://${container.image}`,
            ready: running,
            started: running,
            restartCount: 0,
            state,
          },
        ],
      },
    },
  );
}
