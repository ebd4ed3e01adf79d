import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createBundlePki } from '../../../test/guest/guest-pki.js';
import { guestApiProbe } from './guest-api-probe.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('guest API probe', () => {
  const pki = createBundlePki();
  // Serves HTTP/2 and HTTP/1.1, as a guest kube-apiserver does; remembers what each probe spoke.
  const versions: string[] = [];
  const server = http2.createSecureServer(
    { key: pki.serving.keyPem, cert: pki.serving.certificatePem, allowHTTP1: true },
    (request, response) => {
      versions.push(request.httpVersion);
      response.writeHead(request.url === '/readyz' ? 200 : 404).end('ok');
    },
  );
  let port = 0;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const kubeconfig = (server: string, servername?: string): string =>
    JSON.stringify({
      'current-context': 'guest',
      contexts: [{ name: 'guest', context: { cluster: 'guest', user: 'admin' } }],
      clusters: [
        {
          name: 'guest',
          cluster: {
            server,
            'certificate-authority-data': b64(pki.serverCa.certificatePem),
            ...(servername ? { 'tls-server-name': servername } : {}),
          },
        },
      ],
      users: [
        {
          name: 'admin',
          user: {
            'client-certificate-data': b64(pki.admin.certificatePem),
            'client-key-data': b64(pki.admin.keyPem),
          },
        },
      ],
    });

  // Over HTTP/2, a probe that timed out before the headers came could end the process.
  it('probes over HTTP/1.1 when it connects to the server itself', async () => {
    versions.length = 0;
    await guestApiProbe()(kubeconfig(`https://127.0.0.1:${port}`, 'api.crc.testing'));
    expect(versions).toEqual(['1.1']);
  });

  it('probes over HTTP/1.1 when it connects to another address for the name', async () => {
    versions.length = 0;
    const probe = guestApiProbe(() => ({ host: '127.0.0.1', port }));
    await probe(kubeconfig(`https://api.crc.testing:6443`));
    expect(versions).toEqual(['1.1']);
  });
});
