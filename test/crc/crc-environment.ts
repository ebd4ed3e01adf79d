import type { KubeConfig } from '@kubernetes/client-node';
import { SECRETS } from '../../operator/api/resources.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { createPullSecret } from '../support/pull-secret.js';
import type { SimulatedCrcGuestsOptions } from '../../dev/platform/simulated-crc-guests.js';
import { SimulatedPlatform, TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';
import { OperatorEnvironment } from '../support/operator-environment.js';

export { TEST_AGENT_IMAGE };

export interface CrcEnvironmentOptions {
  /**
   * A namespace whose claims the platform also serves, and the operator's namespace (where the
   * golden disks of CRCBundles live, the source of turnkey clones). Default: none, and the
   * operator namespace of testConfig.
   */
  operatorNamespace?: string;
  /** Whether guests run an API control plane each (default) or an API that is never ready. */
  guestApi?: SimulatedCrcGuestsOptions['api'];
  seed?: SimulatedCrcGuestsOptions['seed'];
  /** The hcp world too (simulated HyperShift and its guest API), for a file that needs both. */
  hcp?: boolean;
}

/**
 * The crc world of one test file (see SimulatedPlatform): storage, CDI, KubeVirt with one CRC
 * guest per VMI, the Job runner, the router, a management node and the platform operands, for
 * the test's namespace (and the operator namespace, if given), plus the real operator.
 */
export class CrcEnvironment extends OperatorEnvironment {
  static async start(
    kubeConfig: KubeConfig,
    api: ApiClient,
    namespace: string,
    options: CrcEnvironmentOptions = {},
  ): Promise<CrcEnvironment> {
    const environment = new CrcEnvironment(kubeConfig, {
      namespaces: [namespace],
      operatorNamespace: options.operatorNamespace,
      crc: { guestApi: options.guestApi, seed: options.seed },
      hcp: options.hcp,
    });
    await SimulatedPlatform.startParts(environment, api);
    return environment;
  }

  /**
   * What a crc instance of the manual path needs besides its spec: the pull secret and the bundle
   * SSH key Secret (key `id_ecdsa`) with the key that disks imported over HTTP accept.
   */
  async createCrcPrerequisites(
    api: ApiClient,
    namespace: string,
    names: { pullSecret?: string; sshKeySecret?: string } = {},
  ): Promise<{ pullSecret: string; sshKeySecret: string; sshKeyDataKey: string }> {
    const pullSecret = names.pullSecret ?? 'pull-secret';
    const sshKeySecret = names.sshKeySecret ?? 'crc-bundle-ssh-key';
    await createPullSecret(api, namespace, pullSecret);
    await api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: sshKeySecret, namespace },
      type: 'Opaque',
      data: { id_ecdsa: Buffer.from(this.bundleKey.private).toString('base64') },
    } as KubeObject);
    return { pullSecret, sshKeySecret, sshKeyDataKey: 'id_ecdsa' };
  }
}
