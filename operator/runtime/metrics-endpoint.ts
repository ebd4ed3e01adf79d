import type { Registry } from 'prom-client';
import type { ApiClient } from '../kube/api-client.js';
import type { Clock } from './clock.js';
import type { Guard, ListenAddress } from './http-endpoints.js';
import { HttpEndpoints } from './http-endpoints.js';
import type { Logger } from './logger.js';
import { MetricsAccess } from './metrics-access.js';
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
  /** Stops reloading the certificate (the endpoint closes with the others). */
  stop: () => void;
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
  ports: { client: ApiClient; clock: Clock; logger: Logger },
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
    return { endpoint: await HttpEndpoints.listen(address, routes), stop: () => undefined };
  }
  const tls = await servingCertificate(secure.certDir, secure.hostname, ports.clock.now());
  const access = new MetricsAccess(ports.client, ports.clock);
  const guard: Guard = async (request, path) => {
    const decision = await access.decide(request.headers.authorization, path);
    return decision.allowed ? undefined : decision;
  };
  const endpoint = await HttpEndpoints.listen(address, routes, { tls, guard });
  ports.logger.info(
    { address, certificate: tls.source },
    'Serving /metrics over HTTPS to authenticated and authorized clients',
  );
  const stop =
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
  return { endpoint, stop };
}
