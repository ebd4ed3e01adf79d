import type { Registry } from 'prom-client';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { Clock } from './clock.js';
import type { Guard, ListenAddress } from './http-endpoints.js';
import { HttpEndpoints } from './http-endpoints.js';
import type { Logger } from './logger.js';
import { METRICS_ACCESS_LIMITS, MetricsAccess } from './metrics-access.js';
import { servingCertificate, watchServingCertificate } from './serving-certificate.js';

/** HTTPS with authentication and authorization for /metrics (controller-runtime's secure metrics). */
export interface SecureMetricsSettings {
  /** A folder with tls.crt and tls.key; a self-signed certificate when unset or empty. */
  certDir?: string;
  /** The self-signed certificate's host name (the metrics Service's). */
  hostname: string;
}

export interface MetricsEndpoint {
  endpoint: HttpEndpoints;
  /**
   * Stops reloading the certificate and closes the reviews' connections (the endpoint closes with
   * the others, first).
   */
  stop: () => Promise<void>;
}

/**
 * The reviews' own lane to the apiserver: never the controllers' or the leader election's
 * connections, and no more connections than reviews may be in flight (MetricsAccess caps them).
 * HTTP/1.1, so a review cut off at its deadline closes its own connection; a 429 is answered
 * at once (503) rather than waited out while the request holds a place in the lane.
 */
function reviewClient(access: ClusterAccess): ApiClient {
  const limits = METRICS_ACCESS_LIMITS;
  return new ApiClient(access, {
    allowH2: false,
    connections: limits.newcomerReviewsInFlight + limits.readerReviewsInFlight,
    maxThrottledAttempts: 1,
  });
}

/**
 * Serves the registry at /metrics: over plain HTTP to anyone when `secure` is unset, else over
 * HTTPS to clients with a bearer token the apiserver authenticates and authorizes for
 * `get /metrics` (MetricsAccess).
 */
export async function listenMetrics(
  address: ListenAddress,
  registry: Registry,
  secure: SecureMetricsSettings | undefined,
  ports: { access: ClusterAccess; clock: Clock; logger: Logger },
): Promise<MetricsEndpoint> {
  const routes = {
    '/metrics': async () => ({
      status: 200,
      body: await registry.metrics(),
      contentType: registry.contentType,
    }),
  };
  if (!secure) {
    ports.logger.info({ address }, 'Serving /metrics over plain HTTP, without authentication');
    return {
      endpoint: await HttpEndpoints.listen(address, routes),
      stop: () => Promise.resolve(),
    };
  }
  const tls = await servingCertificate(secure.certDir, secure.hostname, ports.clock.now());
  const client = reviewClient(ports.access);
  const access = new MetricsAccess(client, ports.clock, { logger: ports.logger });
  const guard: Guard = async (request, path) => {
    const decision = await access.decide(request.headers.authorization, path);
    return decision.allowed ? undefined : decision;
  };
  const onError = (error: unknown): void =>
    ports.logger.warn({ err: error }, 'Could not answer a /metrics request; answered 503');
  const endpoint = await HttpEndpoints.listen(address, routes, { tls, guard, onError });
  ports.logger.info(
    { address, certificate: tls.source },
    'Serving /metrics over HTTPS to authenticated and authorized clients',
  );
  const stopReload =
    secure.certDir && tls.source !== 'self-signed'
      ? watchServingCertificate(
          secure.certDir,
          tls,
          (next) => {
            endpoint.setCertificate(next);
            ports.logger.info({ certificate: secure.certDir }, 'Reloaded the metrics certificate');
          },
          (error) =>
            ports.logger.warn({ err: error }, 'Could not read the metrics certificate again'),
        )
      : () => undefined;
  const stop = async (): Promise<void> => {
    stopReload();
    await client.close();
  };
  return { endpoint, stop };
}
