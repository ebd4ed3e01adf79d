import type { KubeClient } from '../kube/kube-client.js';
import type { CacheReader } from './cache.js';
import type { Clock } from './clock.js';
import type { EventSink } from './event-recorder.js';

/**
 * What a controller is given to act through: the API, the shared caches, an Events sink and the
 * clock. Its product settings (images, service accounts, timings) come beside these, from the
 * operator's configuration; unit tests pass in-memory fakes of all four.
 */
export interface ControllerPorts {
  client: KubeClient;
  cache: CacheReader;
  events: EventSink;
  clock: Clock;
}
