import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createBundlePki } from '../../../../dev/guest/guest-pki.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { guestApiProbe } from './guest-api-probe.js';

describe('guest API probe', () => {
  const pki = createBundlePki();
  // Serves HTTP/2 and HTTP/1.1, as a guest kube-apiserver does; remembers what each probe spoke.
  const requests: { version: string; authorization?: string; client: boolean }[] = [];
  const server = http2.createSecureServer(
    {
      key: pki.serving.keyPem,
      cert: pki.serving.certificatePem,
      ca: pki.adminCa.certificatePem,
      requestCert: true,
      rejectUnauthorized: false,
      allowHTTP1: true,
    },
    (request, response) => {
      const socket = request.socket as unknown as { authorized?: boolean };
      requests.push({
        version: request.httpVersion,
        authorization: request.headers.authorization,
        client: socket.authorized === true,
      });
      response.writeHead(request.url === '/readyz' ? 200 : 404).end('ok');
    },
  );
  let port = 0;
  const probe = (): ReturnType<typeof guestApiProbe> =>
    guestApiProbe(() => ({ host: '127.0.0.1', port }));

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const access = (credentials: GuestAccess['credentials'], ca = pki.serverCa): GuestAccess => ({
    server: 'https://api.crc.testing:6443',
    ca: ca.certificatePem,
    credentials,
  });

  // Over HTTP/2, a probe that timed out before the headers came could end the process.
  it('probes over HTTP/1.1 with the client certificate', async () => {
    requests.length = 0;
    await probe()(access({ cert: pki.admin.certificatePem, key: pki.admin.keyPem }));
    expect(requests).toEqual([{ version: '1.1', authorization: undefined, client: true }]);
  });

  it('sends a token as a bearer token', async () => {
    requests.length = 0;
    await probe()(access({ token: 'sha256~guest' }));
    expect(requests).toEqual([
      { version: '1.1', authorization: 'Bearer sha256~guest', client: false },
    ]);
  });

  it('refuses a server its CA did not sign, before any request', async () => {
    requests.length = 0;
    await expect(probe()(access({ token: 'sha256~guest' }, pki.adminCa))).rejects.toThrow();
    expect(requests).toEqual([]);
  });
});
