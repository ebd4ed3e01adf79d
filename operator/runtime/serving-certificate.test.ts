import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { issueSelfSignedCertificate } from '../kube/self-signed-certificate.js';
import { CERTIFICATE_FILE, KEY_FILE, servingCertificate } from './serving-certificate.js';

const HOST = 'guestcluster-operator-metrics.ops.svc';
const dirs: string[] = [];
const tempDir = async (): Promise<string> => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'serving-cert-'));
  dirs.push(dir);
  return dir;
};
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('servingCertificate', () => {
  it("serves the mounted Secret's tls.crt and tls.key when both are there", async () => {
    const dir = await tempDir();
    const mounted = issueSelfSignedCertificate('issued-by-the-service-ca.example', Date.now());
    await writeFile(path.join(dir, CERTIFICATE_FILE), mounted.certificatePem);
    await writeFile(path.join(dir, KEY_FILE), mounted.keyPem);
    expect(await servingCertificate(dir, HOST, Date.now())).toEqual({ ...mounted, source: dir });
  });

  it('makes a self-signed one for the Service name when none is mounted (an optional, absent Secret)', async () => {
    for (const dir of [undefined, await tempDir(), path.join(os.tmpdir(), 'absent-cert-dir')]) {
      const served = await servingCertificate(dir, HOST, Date.now());
      expect(served.source).toBe('self-signed');
      expect(new X509Certificate(served.certificatePem).subjectAltName).toBe(`DNS:${HOST}`);
    }
  });
});
