import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';

export type StreamResolutionErrors = Counter<'stream' | 'reason'>;

const byRegistry = new WeakMap<Registry, StreamResolutionErrors>();

/**
 * guestcluster_version_stream_resolution_errors_total: checks of a stream that did not settle
 * cleanly, by stream and reason (UpdateServiceUnreachable, NoReleaseInChannel, InvalidSpec,
 * CRCMirrorUnreachable).
 */
export function streamResolutionErrors(registry: Registry): StreamResolutionErrors {
  let counter = byRegistry.get(registry);
  if (!counter) {
    counter = new Counter({
      name: 'guestcluster_version_stream_resolution_errors_total',
      help: 'VersionStream checks that did not resolve cleanly, by stream and reason.',
      labelNames: ['stream', 'reason'],
      registers: [registry],
    });
    byRegistry.set(registry, counter);
  }
  return counter;
}
