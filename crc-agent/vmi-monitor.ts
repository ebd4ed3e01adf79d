import type { KubeConfig } from '@kubernetes/client-node';
import { ApiException, CustomObjectsApi, Watch } from '@kubernetes/client-node';
import { sleep } from './abort.js';
import { errorMessage, VmiNotCurrentError } from './errors.js';
import type { Logger } from './logger.js';

export interface VmiRef {
  namespace: string;
  name: string;
  uid: string;
}

interface Vmi {
  metadata?: { uid?: string; resourceVersion?: string };
  status?: { phase?: string };
}

const GROUP = 'kubevirt.io';
const VERSION = 'v1';
const PLURAL = 'virtualmachineinstances';

/** Why a VMI state is not the current one for this run, or undefined when it is. */
export function notCurrentReason(vmi: Vmi, ref: VmiRef): string | undefined {
  const what = `${ref.namespace}/${ref.name}`;
  const uid = vmi.metadata?.uid ?? '';
  if (uid !== ref.uid)
    return `VirtualMachineInstance ${what} UID changed from ${ref.uid} to ${uid}`;
  if (vmi.status?.phase !== 'Running')
    return `VirtualMachineInstance ${what} is not running (phase ${vmi.status?.phase ?? 'unset'})`;
  return undefined;
}

/**
 * Fences the run to one VMI (docs/reference/agent-protocol.md#vmi-watch): a synchronous check, and
 * a background watch that aborts the watched signal with a VmiNotCurrentError once the VMI is
 * deleted, replaced or not Running.
 */
export class VmiMonitor {
  private readonly api: CustomObjectsApi;
  private readonly stopped = new AbortController();
  private currentWatch: AbortController | undefined;

  constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly ref: VmiRef,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** One GET. Throws VmiNotCurrentError when not current; other errors pass through. */
  async check(): Promise<string> {
    let vmi: Vmi;
    try {
      vmi = (await this.api.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: this.ref.namespace,
        name: this.ref.name,
      })) as Vmi;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404)
        throw new VmiNotCurrentError(
          `VirtualMachineInstance ${this.ref.namespace}/${this.ref.name} was deleted`,
        );
      throw error;
    }
    const reason = notCurrentReason(vmi, this.ref);
    if (reason) throw new VmiNotCurrentError(reason);
    return vmi.metadata?.resourceVersion ?? '';
  }

  /** Starts the background loop; it aborts `watched` with the sentinel error as the reason. */
  start(watched: AbortController): void {
    void this.loop(watched).catch((error: unknown) =>
      this.log.error({ error: errorMessage(error) }, 'VMI watch loop ended unexpectedly'),
    );
  }

  stop(): void {
    this.stopped.abort();
    this.currentWatch?.abort();
  }

  private async loop(watched: AbortController): Promise<void> {
    while (!this.stopped.signal.aborted) {
      let resourceVersion: string;
      try {
        resourceVersion = await this.check();
      } catch (error) {
        if (error instanceof VmiNotCurrentError) {
          watched.abort(error);
          return;
        }
        this.log.warn({ error: errorMessage(error) }, 'Unable to get the VMI; retrying');
        await this.pause();
        continue;
      }
      const sentinel = await this.watchOnce(resourceVersion);
      if (sentinel) {
        watched.abort(sentinel);
        return;
      }
      await this.pause();
    }
  }

  private async pause(): Promise<void> {
    await sleep(this.retryMs, this.stopped.signal).catch(() => undefined);
  }

  /** Watches until the stream ends (undefined) or the VMI stops being current (the error). */
  private watchOnce(resourceVersion: string): Promise<VmiNotCurrentError | undefined> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (result: VmiNotCurrentError | undefined): void => {
        if (done) return;
        done = true;
        this.currentWatch?.abort();
        resolve(result);
      };
      const onEvent = (phase: string, object: Vmi): void => {
        if (phase === 'DELETED')
          finish(
            new VmiNotCurrentError(
              `VirtualMachineInstance ${this.ref.namespace}/${this.ref.name} was deleted or replaced`,
            ),
          );
        if (phase !== 'ADDED' && phase !== 'MODIFIED') return;
        const reason = notCurrentReason(object, this.ref);
        if (reason) finish(new VmiNotCurrentError(reason));
      };
      new Watch(this.kubeConfig)
        .watch(
          `/apis/${GROUP}/${VERSION}/namespaces/${this.ref.namespace}/${PLURAL}`,
          {
            fieldSelector: `metadata.name=${this.ref.name}`,
            resourceVersion,
            allowWatchBookmarks: true,
          },
          onEvent,
          (error: unknown) => {
            if (error && !this.stopped.signal.aborted)
              this.log.warn({ error: errorMessage(error) }, 'VMI watch ended; re-listing');
            finish(undefined);
          },
        )
        .then(
          (controller) => {
            this.currentWatch = controller;
            if (done || this.stopped.signal.aborted) controller.abort();
          },
          (error: unknown) => {
            this.log.warn({ error: errorMessage(error) }, 'Unable to watch the VMI; retrying');
            finish(undefined);
          },
        );
      this.stopped.signal.addEventListener('abort', () => finish(undefined), { once: true });
    });
  }
}
