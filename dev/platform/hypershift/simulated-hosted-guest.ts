import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { issueCertificate } from '../../../crc-agent/certificates.js';
import { isNotFound } from '../../../crc-agent/rest-client.js';
import { GuestApiServer } from '../../guest/guest-api.js';
import { GuestFront } from '../../guest/guest-front.js';
import { createBundlePki } from '../../guest/guest-pki.js';
import type { BundlePki } from '../../guest/guest-pki.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const CONFIG = '/apis/config.openshift.io/v1';

interface ApiServerConfig {
  metadata: Record<string, unknown>;
  spec?: {
    servingCerts?: {
      namedCertificates?: { names?: string[]; servingCertificate?: { name?: string } }[];
    };
  };
}

/** A booted and seeded guest API as another process reaches it: its admin kubeconfig and PKI. */
export interface HostedGuestApi {
  kubeconfigPath: string;
  pki: BundlePki;
}

/**
 * The guest side of simulated hosted clusters: one real guest kube-apiserver (a second local
 * control plane) behind OpenShift's front door on 127.0.0.1, shared by every hosted cluster of a
 * platform, or of a whole test run (boot once, attach a front door per platform). Each hosted
 * cluster gets its own admin credential and has its API host name served with the certificate
 * its HostedCluster names, as a hosted KAS would.
 */
export class SimulatedHostedGuest {
  private constructor(
    readonly api: GuestApiServer,
    readonly pki: BundlePki,
    readonly front: GuestFront,
  ) {}

  static async start(ocpVersion = '4.16.10'): Promise<SimulatedHostedGuest> {
    const { api, shared } = await SimulatedHostedGuest.boot(ocpVersion);
    try {
      const front = await GuestFront.start(shared.pki, {
        upstream: api.upstream,
        admin: api.admin,
      });
      return new SimulatedHostedGuest(api, shared.pki, front);
    } catch (error) {
      await api.stop();
      throw error;
    }
  }

  /** The guest API alone, booted and seeded, for front doors to attach to; the caller stops it. */
  static async boot(
    ocpVersion = '4.16.10',
  ): Promise<{ api: GuestApiServer; shared: HostedGuestApi }> {
    const api = await GuestApiServer.start();
    const pki = createBundlePki();
    try {
      await api.seed(pki, {
        ocpVersion,
        pullSecret: '{"auths":{"registry.example":{"auth":"dTpw"}}}',
        pendingKubeletCsrs: false,
      });
      return { api, shared: { kubeconfigPath: api.kubeconfigPath, pki } };
    } catch (error) {
      await api.stop();
      throw error;
    }
  }

  /**
   * A front door of this process to a guest API booted elsewhere (the same certificates, so every
   * front door serves and trusts alike); stopping it leaves the guest API running.
   */
  static async attach(shared: HostedGuestApi): Promise<SimulatedHostedGuest> {
    const api = GuestApiServer.connect(shared.kubeconfigPath);
    const front = await GuestFront.start(shared.pki, { upstream: api.upstream, admin: api.admin });
    return new SimulatedHostedGuest(api, shared.pki, front);
  }

  /** Where the guest API answers (what the hosted KAS Service stands for). */
  get address(): { host: string; port: number } {
    return { host: '127.0.0.1', port: this.front.port };
  }

  /** An admin kubeconfig as HyperShift writes it: system:admin, trusting the guest's server CA. */
  adminKubeconfig(clusterName: string, server: string): string {
    const admin = issueCertificate({
      commonName: 'system:admin',
      organizations: ['system:masters'],
      issuer: this.pki.adminCa,
      isCa: false,
      clientAuth: true,
      validityDays: 30,
    });
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: clusterName,
          cluster: { server, 'certificate-authority-data': b64(this.pki.serverCa.certificatePem) },
        },
      ],
      users: [
        {
          name: 'admin',
          user: {
            'client-certificate-data': b64(admin.certificatePem),
            'client-key-data': b64(admin.keyPem),
          },
        },
      ],
      contexts: [{ name: 'admin', context: { cluster: clusterName, user: 'admin' } }],
      'current-context': 'admin',
    });
  }

  /** Serves `hostname` with this certificate (the guest's apiservers/cluster named certificates). */
  async serveNamedCertificate(
    hostname: string,
    certificatePem: string,
    keyPem: string,
  ): Promise<void> {
    const secret = secretName(hostname);
    const body = {
      metadata: { name: secret },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(certificatePem), 'tls.key': b64(keyPem) },
    };
    const path = `/api/v1/namespaces/openshift-config/secrets/${secret}`;
    try {
      const existing = await this.api.admin.json<{ metadata: Record<string, unknown> }>({
        method: 'GET',
        path,
      });
      await this.api.admin.json({
        method: 'PUT',
        path,
        body: { ...body, metadata: existing.metadata },
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await this.api.admin.json({
        method: 'POST',
        path: '/api/v1/namespaces/openshift-config/secrets',
        body,
      });
    }
    await this.updateNamedCertificates((list) => [
      ...list.filter((entry) => !entry.names?.includes(hostname)),
      { names: [hostname], servingCertificate: { name: secret } },
    ]);
  }

  async forgetNamedCertificate(hostname: string): Promise<void> {
    await this.updateNamedCertificates((list) =>
      list.filter((entry) => !entry.names?.includes(hostname)),
    );
    await this.api.admin
      .json({
        method: 'DELETE',
        path: `/api/v1/namespaces/openshift-config/secrets/${secretName(hostname)}`,
      })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  }

  /** Host names the guest currently serves with a named certificate. */
  async servedHostnames(): Promise<string[]> {
    const config = await this.api.admin.json<ApiServerConfig>({
      method: 'GET',
      path: `${CONFIG}/apiservers/cluster`,
    });
    return (config.spec?.servingCerts?.namedCertificates ?? []).flatMap(
      (entry) => entry.names ?? [],
    );
  }

  async stop(): Promise<void> {
    await this.front.stop();
    await this.api.stop();
  }

  private async updateNamedCertificates(
    change: (
      list: NonNullable<NonNullable<ApiServerConfig['spec']>['servingCerts']>['namedCertificates'] &
        object,
    ) => NonNullable<NonNullable<ApiServerConfig['spec']>['servingCerts']>['namedCertificates'],
  ): Promise<void> {
    // Hosted clusters of a test file come and go at once: a read-modify-write with retries on conflict.
    for (;;) {
      const path = `${CONFIG}/apiservers/cluster`;
      const config = await this.api.admin.json<ApiServerConfig>({ method: 'GET', path });
      const namedCertificates = change(config.spec?.servingCerts?.namedCertificates ?? []);
      try {
        await this.api.admin.json({
          method: 'PUT',
          path,
          body: {
            ...config,
            spec: {
              ...config.spec,
              servingCerts: { ...config.spec?.servingCerts, namedCertificates },
            },
          },
        });
        return;
      } catch (error) {
        if ((error as { status?: number }).status !== 409) throw error;
      }
    }
  }
}

function secretName(hostname: string): string {
  return `kas-${createHash('sha256').update(hostname).digest('hex').slice(0, 16)}`;
}
