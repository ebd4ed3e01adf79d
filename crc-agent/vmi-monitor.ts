import type { ApiClient } from '../client/kube/api-client.js';
import { isNotFound } from '../client/kube/api-error.js';
import type { KubeObject } from '../client/kube/objects.js';
import { resourceType } from '../client/kube/resource-type.js';
import { sleep } from './abort.js';
import { errorMessage, VmiNotCurrentError } from './errors.js';
import type { Logger } from './logger.js';

export interface VmiRef {
  namespace: string;
  name: string;
  uid: string;
}

interface Vmi extends KubeObject {
  status?: { phase?: string };
}

const VMIS = resourceType('kubevirt.io/v1', 'VirtualMachineInstance', 'virtualmachineinstances');

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
  private readonly stopped = new AbortController();

  constructor(
    private readonly api: ApiClient,
    private readonly ref: VmiRef,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {}

  /** One GET. Throws VmiNotCurrentError when not current; other errors pass through. */
  async check(): Promise<string> {
    let vmi: Vmi;
    try {
      vmi = await this.api.get<Vmi>(VMIS, this.ref.name, this.ref.namespace);
    } catch (error) {
      if (isNotFound(error))
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
  private async watchOnce(resourceVersion: string): Promise<VmiNotCurrentError | undefined> {
    const seen = new AbortController();
    let sentinel: VmiNotCurrentError | undefined;
    const onEvent = (type: string, object: Vmi): void => {
      if (type === 'DELETED')
        sentinel = new VmiNotCurrentError(
          `VirtualMachineInstance ${this.ref.namespace}/${this.ref.name} was deleted or replaced`,
        );
      else if (type === 'ADDED' || type === 'MODIFIED') {
        const reason = notCurrentReason(object, this.ref);
        if (reason) sentinel = new VmiNotCurrentError(reason);
      }
      if (sentinel) seen.abort();
    };
    try {
      await this.api.watch<Vmi>(
        VMIS,
        {
          namespace: this.ref.namespace,
          fieldSelector: `metadata.name=${this.ref.name}`,
          resourceVersion,
        },
        (event) => {
          if (!sentinel) onEvent(event.type, event.object);
        },
        AbortSignal.any([seen.signal, this.stopped.signal]),
      );
    } catch (error) {
      if (!sentinel && !this.stopped.signal.aborted)
        this.log.warn({ error: errorMessage(error) }, 'VMI watch ended; re-listing');
    }
    return sentinel;
  }
}
