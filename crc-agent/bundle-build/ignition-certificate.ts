import { X509Certificate } from 'node:crypto';
import { gunzipSync } from 'node:zlib';

interface IgnitionFile {
  path?: string;
  contents?: { source?: string; compression?: string };
}

/** The bytes of an ignition data URL (`data:[<type>][;base64],<data>`), decompressed. */
export function dataUrlBytes(source: string, compression?: string): Buffer | undefined {
  const match = /^data:([^,]*),(.*)$/s.exec(source);
  if (!match) return undefined;
  const raw = match[1]!.endsWith(';base64')
    ? Buffer.from(match[2]!, 'base64')
    : Buffer.from(decodeURIComponent(match[2]!), 'utf8');
  return compression === 'gzip' ? gunzipSync(raw) : raw;
}

/**
 * The earliest NotBefore among the certificates the live ignition carries under
 * /opt/openshift/tls (the installer's CAs and serving certificates), with the file it came
 * from; undefined when it carries none. The installer sets NotBefore to its own clock (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2),
 * so this shows which clock generated the ignition.
 */
export function ignitionCertificateNotBefore(
  ignitionJson: string,
): { file: string; notBefore: Date } | undefined {
  const ignition = JSON.parse(ignitionJson) as { storage?: { files?: IgnitionFile[] } };
  let earliest: { file: string; notBefore: Date } | undefined;
  for (const file of ignition.storage?.files ?? []) {
    if (!file.path?.startsWith('/opt/openshift/tls/') || !file.path.endsWith('.crt')) continue;
    const bytes =
      file.contents?.source && dataUrlBytes(file.contents.source, file.contents.compression);
    if (!bytes) continue;
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(bytes);
    } catch {
      continue;
    }
    const notBefore = new Date(certificate.validFrom);
    if (!earliest || notBefore < earliest.notBefore) earliest = { file: file.path, notBefore };
  }
  return earliest;
}
