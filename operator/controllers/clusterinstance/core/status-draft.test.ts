import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import { InstanceStatusDraft } from './status-draft.js';

const NOW = Date.parse('2026-01-10T12:00:00Z');

/** As the apiserver returns it: keys sorted. */
const instance = (ocpVersion = '4.16.10'): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1', generation: 1 },
  spec: { type: 'hcp', template: { ocpVersion, memory: '8Gi', cores: 2 } },
  status: {
    conditions: [
      {
        lastTransitionTime: '2026-01-10T11:00:00Z',
        message: 'waiting',
        observedGeneration: 1,
        reason: 'HostedClusterNotAvailable',
        status: 'False',
        type: 'Ready',
      },
    ],
    observedGeneration: 1,
    phase: 'Provisioning',
  },
});

describe('instance status draft', () => {
  it('sees no change when only the key order differs (a write would be a silent no-op)', () => {
    const draft = new InstanceStatusDraft(instance(), NOW).waiting(
      'HostedClusterNotAvailable',
      'waiting',
    );
    expect(draft.changed).toBe(false);
  });

  it('keeps lastTransitionTime while the status holds and moves it on a flip', () => {
    const same = new InstanceStatusDraft(instance(), NOW).waiting('NodePoolNotReady', 'scaling');
    expect(same.changed).toBe(true);
    expect(same.status.conditions![0]!.lastTransitionTime).toBe('2026-01-10T11:00:00Z');
    const ready = new InstanceStatusDraft(instance('4.16.9'), NOW).ready({
      ocpVersion: '4.16.10',
      apiEndpoint: 'https://api.example',
      kubeconfig: { secretName: 'pool-0-kubeconfig', sha256: 'a'.repeat(64) },
    });
    expect(ready.status).toMatchObject({
      phase: 'Ready',
      topology: 'hcp',
      ocpVersion: '4.16.10',
      apiEndpoint: 'https://api.example',
      kubeconfigSecretRef: { name: 'pool-0-kubeconfig' },
      kubeconfigSHA256: 'a'.repeat(64),
    });
    const byType = Object.fromEntries(ready.status.conditions!.map((c) => [c.type, c]));
    expect(byType.Ready).toMatchObject({
      status: 'True',
      reason: 'BackingResourcesAvailable',
      lastTransitionTime: '2026-01-10T12:00:00Z',
    });
    expect(byType.VersionMismatch).toMatchObject({
      status: 'True',
      reason: 'OCPVersionMismatch',
      message: 'requested OCPVersion "4.16.9" but observed "4.16.10"',
    });
  });
});
