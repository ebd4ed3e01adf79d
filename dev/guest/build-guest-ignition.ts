import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { parse, stringify } from 'yaml';
import { nativeSigner } from '../../contracts/certificates.js';

/**
 * What `openshift-install create single-node-ignition-config` leaves in the install dir, as far
 * as the build reads it: the live ignition (with a certificate whose NotBefore is the clock of
 * the VM that ran it, and the install-config's SSH key for core), the admin kubeconfig, the
 * kubeadmin password, and the state file that holds the pull secret (docs/bundle-build.md#10-cleanup).
 */
export function installDirFiles(input: {
  installConfig: string;
  liveAdditions: string;
  pullSecret: string;
  clockMs: number;
}): Record<string, string> {
  const config = parse(input.installConfig) as { sshKey?: string };
  // Node's RSA: node-forge's JavaScript key generation and signing take seconds in a test.
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  certificate.serialNumber = `01${randomBytes(8).toString('hex')}`;
  certificate.validity.notBefore = new Date(input.clockMs);
  certificate.validity.notAfter = new Date(input.clockMs + 24 * 3600_000);
  const subject = [{ name: 'commonName', value: 'kubelet-bootstrap-kubeconfig-signer' }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([{ name: 'basicConstraints', cA: true }]);
  certificate.sign(nativeSigner(keys.privateKey), forge.md.sha256.create());
  const pem = forge.pki.certificateToPem(certificate);
  const additions = JSON.parse(input.liveAdditions) as {
    systemd?: { units?: unknown[] };
    storage?: { files?: unknown[] };
  };
  const ignition = {
    ignition: { version: '3.2.0' },
    passwd: { users: [{ name: 'core', sshAuthorizedKeys: config.sshKey ? [config.sshKey] : [] }] },
    systemd: {
      units: [{ name: 'bootkube.service', enabled: true }, ...(additions.systemd?.units ?? [])],
    },
    storage: {
      files: [
        {
          path: '/opt/openshift/tls/kubelet-bootstrap-kubeconfig-signer.crt',
          mode: 420,
          contents: { source: `data:;base64,${Buffer.from(pem).toString('base64')}` },
        },
        ...(additions.storage?.files ?? []),
      ],
    },
  };
  const kubeconfig = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'crc',
        cluster: {
          server: 'https://api.crc.testing:6443',
          'certificate-authority-data': Buffer.from(pem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'admin', user: { token: randomBytes(16).toString('hex') } }],
    contexts: [{ name: 'admin', context: { cluster: 'crc', user: 'admin' } }],
    'current-context': 'admin',
  });
  return {
    'bootstrap-in-place-for-live-iso.ign': JSON.stringify(ignition),
    'auth/kubeconfig': kubeconfig,
    'auth/kubeadmin-password': `${randomBytes(10).toString('base64url').slice(0, 5)}-simulated-kubeadmin`,
    'metadata.json': JSON.stringify({ clusterName: 'crc', infraID: 'crc-simulated' }),
    '.openshift_install_state.json': JSON.stringify({
      '*installconfig.InstallConfig': { pullSecret: input.pullSecret },
    }),
  };
}

/** The SSH keys a live ignition gives core. */
export function ignitionAuthorizedKeys(ignitionJson: string): string {
  const ignition = JSON.parse(ignitionJson) as {
    passwd?: { users?: { name?: string; sshAuthorizedKeys?: string[] }[] };
  };
  const core = ignition.passwd?.users?.find((user) => user.name === 'core');
  return (core?.sshAuthorizedKeys ?? []).join('\n');
}
