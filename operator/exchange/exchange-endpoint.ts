import { rootCertificates } from 'node:tls';
import { EnvHttpProxyAgent } from 'undici';
import { httpGetter } from '../controllers/versionstream/http-get.js';
import type { Logger } from '../runtime/logger.js';
import type { ControllerPorts } from '../runtime/ports.js';
import { servingCertificate, watchServingCertificate } from '../runtime/serving-certificate.js';
import type { TokenExchangeSettings } from './exchange-settings.js';
import { ExchangeServer } from './exchange-server.js';
import { IssuerKeys } from './issuer-keys.js';
import { TokenExchange } from './token-exchange.js';

/** A discovery document or JWKS not read by then is an IssuerUnavailable refusal. */
const ISSUER_TIMEOUT_MS = 10_000;

/** The running exchange: its port (useful with port 0) and how to stop it. */
export interface RunningExchange {
  port: number;
  stop: () => Promise<void>;
}

/**
 * Serves the token exchange over HTTPS with the platform's serving certificate (reloaded when
 * it rotates), reading issuers' keys through the pod's proxy settings (HTTPS_PROXY, NO_PROXY as
 * the cluster proxy injects them), trusting the system roots and the admin's extra CAs.
 */
export async function startTokenExchange(
  settings: TokenExchangeSettings,
  ports: ControllerPorts,
  process: { ready: () => boolean; logger: Logger },
): Promise<RunningExchange> {
  const { logger } = process;
  const ca = settings.issuerCaCertificates
    ? [...rootCertificates, settings.issuerCaCertificates]
    : undefined;
  const dispatcher = new EnvHttpProxyAgent(ca ? { connect: { ca }, requestTls: { ca } } : {});
  const keys = new IssuerKeys(httpGetter(ISSUER_TIMEOUT_MS, dispatcher), ports.clock);
  const exchange = new TokenExchange(ports, keys, settings.limits, logger);
  const tls = await servingCertificate(settings.certDir, settings.hostname, ports.clock.now());
  const server = await ExchangeServer.listen(settings.address, tls, {
    ready: process.ready,
    exchange: (request) => exchange.exchange(request),
    onError: (error) =>
      logger.warn({ err: error }, 'Could not answer a token exchange; answered 503'),
  });
  logger.info(
    { address: settings.address, certificate: tls.source },
    'Serving the token exchange over HTTPS',
  );
  const stopReload =
    settings.certDir && tls.source !== 'self-signed'
      ? watchServingCertificate(
          settings.certDir,
          tls,
          (next) => server.setCertificate(next),
          (error) =>
            logger.warn({ err: error }, 'Could not read the token exchange certificate again'),
        )
      : () => undefined;
  return {
    port: server.port,
    stop: async () => {
      stopReload();
      await server.close();
      await dispatcher.close();
    },
  };
}
