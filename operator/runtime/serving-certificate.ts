import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CertificateAndKey } from '../kube/self-signed-certificate.js';
import { issueSelfSignedCertificate } from '../kube/self-signed-certificate.js';

export const CERTIFICATE_FILE = 'tls.crt';
export const KEY_FILE = 'tls.key';
/** How often a mounted certificate is read again (a rotated service-serving certificate). */
const RELOAD_INTERVAL_MS = 60_000;

export interface ServingCertificate extends CertificateAndKey {
  /** Where it comes from: the folder it was read from, or "self-signed". */
  source: string;
}

async function readMounted(dir: string): Promise<CertificateAndKey | undefined> {
  try {
    const [certificatePem, keyPem] = await Promise.all([
      readFile(path.join(dir, CERTIFICATE_FILE), 'utf8'),
      readFile(path.join(dir, KEY_FILE), 'utf8'),
    ]);
    return certificatePem && keyPem ? { certificatePem, keyPem } : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The metrics server's certificate: `tls.crt` and `tls.key` of `dir` when both are there (a
 * mounted Secret, such as OpenShift's service-serving certificate), else a self-signed one made
 * at start for `hostname`, which a scraper that trusts nothing but a token (Prometheus with
 * insecureSkipVerify) accepts.
 */
export async function servingCertificate(
  dir: string | undefined,
  hostname: string,
  now: number,
): Promise<ServingCertificate> {
  const mounted = dir ? await readMounted(dir) : undefined;
  if (mounted) return { ...mounted, source: dir! };
  return { ...issueSelfSignedCertificate(hostname, now), source: 'self-signed' };
}

/**
 * Reads a mounted certificate again every minute and calls `onChange` with a new one, so that a
 * rotated Secret is served without a restart. Returns the stop function.
 */
export function watchServingCertificate(
  dir: string,
  current: CertificateAndKey,
  onChange: (certificate: CertificateAndKey) => void,
  onError: (error: unknown) => void,
): () => void {
  let served = current;
  const timer = setInterval(() => {
    readMounted(dir).then((next) => {
      if (!next || (next.certificatePem === served.certificatePem && next.keyPem === served.keyPem))
        return;
      served = next;
      onChange(next);
    }, onError);
  }, RELOAD_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
