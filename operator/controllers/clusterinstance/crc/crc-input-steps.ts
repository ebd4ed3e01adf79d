import { holds, recorded } from '../../../reconcile/verdict.js';
import { resolvePullSecret } from '../core/pull-secret.js';
import { Reason } from '../core/reasons.js';
import { bundleConsumer } from './crc-bundle-consumer.js';
import { bindBootKey, bundleSshKey } from './crc-disk-source.js';
import { resolveCrcEndpoint } from './crc-endpoint.js';
import { crcBundleName } from './crc-naming.js';
import type { CrcPass, CrcStep } from './crc-pass.js';

/*
 * The first steps of a crc pass (docs/reference/instances.md#crc-provisioning): its inputs, checked
 * until the instance is Ready, and the records everything after them is made from. They only read
 * and record, so that a pass records all of them together.
 */

/** The pull secret's name, while the instance provisions. */
export function pullSecretStep(pass: CrcPass): CrcStep<never, 'pullSecret'> {
  return {
    name: 'pull secret',
    recordsOnly: true,
    run: async () =>
      holds({
        pullSecret: pass.draft.wasReady ? undefined : await resolvePullSecret(pass.objects),
      }),
  };
}

/** The manual path's bundle key, while the instance provisions (a turnkey one has a boot key). */
export function bundleKeyStep(pass: CrcPass): CrcStep<never, 'bundleKey'> {
  const manual = !crcBundleName(pass.objects.instance);
  return {
    name: 'bundle key',
    recordsOnly: true,
    run: async () =>
      holds({
        bundleKey: !pass.draft.wasReady && manual ? await bundleSshKey(pass.objects) : undefined,
      }),
  };
}

/** A turnkey instance's bundle allows its namespace, while the instance provisions. */
export function bundleConsumerStep(pass: CrcPass): CrcStep {
  return {
    name: 'bundle consumers',
    recordsOnly: true,
    run: () => (pass.draft.wasReady ? holds() : bundleConsumer(pass.objects)),
  };
}

/** A turnkey instance's disk and key, recorded before its disk exists. */
export function bootKeyStep(pass: CrcPass): CrcStep {
  return {
    name: 'boot key binding',
    conflict: Reason.APIEndpointConflict,
    recordsOnly: true,
    run: () => (pass.draft.wasReady ? holds() : bindBootKey(pass.objects, pass.draft)),
  };
}

/** The API host, recorded before the identity Secret and the Route are issued for it. */
export function endpointStep(pass: CrcPass): CrcStep<never, 'endpoint'> {
  return {
    name: 'API endpoint',
    conflict: Reason.APIEndpointConflict,
    recordsOnly: true,
    run: async () => {
      const endpoint = await resolveCrcEndpoint(pass.api, pass.objects);
      const apiEndpoint = `https://${endpoint.hostname}`;
      if (pass.draft.status.apiEndpoint === apiEndpoint) return holds({ endpoint });
      pass.draft.status.apiEndpoint = apiEndpoint;
      return recorded({ endpoint });
    },
  };
}
