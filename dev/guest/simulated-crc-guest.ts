import { stringify } from 'yaml';
import ssh2 from 'ssh2';
import type { GuestApiServer, GuestClusterSeed } from './guest-api.js';
import { GuestFront } from './guest-front.js';
import { GuestMachine } from './guest-machine.js';
import type { GuestMachineOptions } from './guest-machine.js';
import { createBundlePki } from './guest-pki.js';
import type { BundlePki } from './guest-pki.js';
import { GuestSshServer } from './guest-ssh-server.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** The bundle's /opt/kubeconfig: api.crc.testing, the bundle server CA, the bundle admin credential. */
export function bundleKubeconfig(pki: BundlePki): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'crc',
        cluster: {
          server: 'https://api.crc.testing:6443',
          'certificate-authority-data': b64(pki.serverCa.certificatePem),
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
    contexts: [{ name: 'admin', context: { cluster: 'crc', user: 'admin' } }],
    'current-context': 'admin',
    preferences: {},
  });
}

export interface SimulatedGuestOptions extends GuestMachineOptions {
  /** The certificates baked into the disk the guest boots from; a bundle of its own when absent. */
  pki?: BundlePki;
  /** The guest API server; without it the guest's API port is closed. */
  api?: GuestApiServer;
  /** Without an API server: the API port answers, but only ever with 503 (never ready). */
  apiNeverReady?: boolean;
  seed?: Partial<GuestClusterSeed>;
  /** authorized_keys holds this public key instead of the bundle key's. */
  authorizedPublicKey?: string;
  /** The guest's address: sshd and the API listen there (127.0.0.1 by default). */
  address?: string;
  /** The API's port on that address (a free one by default). */
  apiPort?: number;
}

/**
 * A CRC guest for tests and the local environment: sshd on 127.0.0.1 with the bundle key, the
 * guest's shell commands with their RHCOS effects, and (with an API server) the guest
 * kube-apiserver behind OpenShift's front door, reachable through the SSH tunnel.
 */
export class SimulatedCrcGuest {
  readonly machine: GuestMachine;
  ssh: GuestSshServer;
  readonly pki: BundlePki;
  /** The bundle's SSH private key (OpenSSH format), as in the bundle's id_ecdsa_crc. */
  readonly bundlePrivateKey: string;
  /** Its authorized_keys line. */
  readonly bundlePublicKey: string;
  /** The guest API's front door (also where the Route would pass TLS through to). */
  readonly front: GuestFront | undefined;
  /** Where sshd and the API listen. */
  readonly address: string;
  /** The guest's API server, when it runs one (a test breaks the guest's cluster through it). */
  readonly api: GuestApiServer | undefined;

  private constructor(parts: {
    machine: GuestMachine;
    ssh: GuestSshServer;
    pki: BundlePki;
    bundlePrivateKey: string;
    bundlePublicKey: string;
    front: GuestFront | undefined;
    address: string;
    api: GuestApiServer | undefined;
  }) {
    this.machine = parts.machine;
    this.ssh = parts.ssh;
    this.pki = parts.pki;
    this.bundlePrivateKey = parts.bundlePrivateKey;
    this.bundlePublicKey = parts.bundlePublicKey;
    this.front = parts.front;
    this.address = parts.address;
    this.api = parts.api;
  }

  static async start(options: SimulatedGuestOptions = {}): Promise<SimulatedCrcGuest> {
    const pki = options.pki ?? createBundlePki();
    const bundleKey = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    const machine = new GuestMachine(
      bundleKubeconfig(pki),
      `${options.authorizedPublicKey ?? bundleKey.public}\n`,
      options,
    );
    const listen = { host: options.address ?? '127.0.0.1', port: options.apiPort ?? 0 };
    let front: GuestFront | undefined;
    if (options.api) {
      await options.api.seed(pki, {
        ocpVersion: '4.16.0',
        pullSecret: '{"auths":{}}',
        ...options.seed,
      });
      front = await GuestFront.start(
        pki,
        { upstream: options.api.upstream, admin: options.api.admin },
        listen,
      );
    } else if (options.apiNeverReady) {
      front = await GuestFront.start(pki, undefined, listen);
    }
    if (front) machine.apiEndpoint = { host: listen.host, port: front.port };
    let ssh: GuestSshServer;
    try {
      ssh = await GuestSshServer.start(machine, () => front?.port, listen.host);
    } catch (error) {
      await front?.stop();
      throw error;
    }
    return new SimulatedCrcGuest({
      machine,
      ssh,
      pki,
      bundlePrivateKey: bundleKey.private,
      bundlePublicKey: bundleKey.public,
      front,
      address: listen.host,
      api: options.api,
    });
  }

  /**
   * sshd comes back on the same address with another host key: what a client sees when something
   * else answers there, or when the guest's host keys were made anew.
   */
  async replaceHostKey(): Promise<void> {
    const { port } = this.ssh;
    await this.ssh.stop();
    this.ssh = await GuestSshServer.start(this.machine, () => this.front?.port, this.address, port);
  }

  async stop(): Promise<void> {
    await this.ssh.stop();
    await this.front?.stop();
  }
}
