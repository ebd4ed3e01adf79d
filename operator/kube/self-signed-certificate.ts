import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import forge from 'node-forge';

/** A PEM certificate and its PEM private key. */
export interface CertificateAndKey {
  certificatePem: string;
  keyPem: string;
}

const HOUR_MS = 3_600_000;
const VALIDITY_MS = 87_600 * HOUR_MS;
const BACKDATE_MS = 5 * 60_000;

const { asn1 } = forge;
const seq = (items: forge.asn1.Asn1[]): forge.asn1.Asn1 =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, items);
const oid = (id: string): forge.asn1.Asn1 =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
const bool = (value: boolean): forge.asn1.Asn1 =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BOOLEAN, false, value ? '\xff' : '\x00');
const octets = (value: forge.asn1.Asn1): forge.asn1.Asn1 =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, asn1.toDer(value).getBytes());
const bits = (bytes: string): forge.asn1.Asn1 =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, bytes);
const fromDer = (der: Buffer): forge.asn1.Asn1 => asn1.fromDer(der.toString('binary'));

function time(date: Date): forge.asn1.Asn1 {
  const year = date.getUTCFullYear();
  const utc = year >= 1950 && year < 2050;
  const text = date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')
    .slice(utc ? 2 : 0);
  return asn1.create(
    asn1.Class.UNIVERSAL,
    utc ? asn1.Type.UTCTIME : asn1.Type.GENERALIZEDTIME,
    false,
    text,
  );
}

function extension(id: string, critical: boolean, value: forge.asn1.Asn1): forge.asn1.Asn1 {
  return seq([oid(id), ...(critical ? [bool(true)] : []), octets(value)]);
}

/**
 * A self-signed ECDSA P-256 serving certificate for `hostname`: CN and the only DNS SAN are the
 * host name, random serial, valid from five minutes ago for 87600 hours, CA, server auth.
 * (node-forge cannot sign with EC keys: the structure is built with its ASN.1 helpers and signed
 * with Node's crypto.)
 */
export function issueSelfSignedCertificate(hostname: string, now: number): CertificateAndKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive and minimally encoded
  const name = seq([
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SET, true, [
      seq([oid('2.5.4.3'), asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTF8, false, hostname)]),
    ]),
  ]);
  const algorithm = seq([oid('1.2.840.10045.4.3.2')]);
  const extensions = seq([
    extension('2.5.29.19', true, seq([bool(true)])),
    // digitalSignature, keyEncipherment, keyCertSign: bits 0, 2 and 5; two unused bits.
    extension('2.5.29.15', true, bits('\x02\xa4')),
    extension('2.5.29.37', false, seq([oid('1.3.6.1.5.5.7.3.1')])),
    extension(
      '2.5.29.17',
      false,
      seq([asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, hostname)]),
    ),
  ]);
  const tbs = seq([
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, '\x02'),
    ]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, serial.toString('binary')),
    algorithm,
    name,
    seq([time(new Date(now - BACKDATE_MS)), time(new Date(now - BACKDATE_MS + VALIDITY_MS))]),
    name,
    fromDer(publicKey.export({ type: 'spki', format: 'der' })),
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 3, true, [extensions]),
  ]);
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, privateKey);
  const certificate = seq([tbs, algorithm, bits(`\x00${signature.toString('binary')}`)]);
  const der = Buffer.from(asn1.toDer(certificate).getBytes(), 'binary');
  const body = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    certificatePem: `-----BEGIN CERTIFICATE-----\n${body.replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
  };
}
