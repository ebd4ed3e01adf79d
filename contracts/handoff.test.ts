import { describe, expect, it } from '@jest/globals';
import { checkExistingHandoff, desiredHandoffSecret } from '../crc-agent/publish.js';
import type { ClusterInstance } from '../client/api/resources.js';
import { buildHandoffSecret } from '../operator/controllers/clusterinstance/crc/crc-agent-builders.js';
import { handoffFrom } from '../operator/controllers/clusterinstance/crc/crc-handoff.js';
import type { Stored } from '../operator/kube/objects.js';
import { handoffLabels, handoffSecretName, handoffSelector } from './handoff.js';

const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
};
const handoff = {
  instanceName: 'pool-0',
  namespace: 'ci',
  instanceUid: 'uid-1',
  vmiUid: 'vmi-1',
  kubeconfig: 'apiVersion: v1\nkind: Config\n',
  ocpVersion: '4.16.0',
  sshHostKey: 'ssh-ed25519 AAAA',
};

/** Whether a `key=value,key=value` selector matches the labels. */
const selects = (selector: string, labels: Record<string, string> = {}): boolean =>
  selector.split(',').every((term) => {
    const [key, value] = term.split('=');
    return labels[key!] === value;
  });

describe('the handoff contract', () => {
  it('lets the agent fill in the Secret the operator made empty for its VMI', () => {
    const prepared = buildHandoffSecret(instance, 'vmi-1');
    const written = desiredHandoffSecret(handoff);
    expect(prepared.metadata.name).toBe(handoffSecretName('pool-0', 'vmi-1'));
    expect(written.metadata!.name).toBe(prepared.metadata.name);
    expect(() => checkExistingHandoff(prepared, handoff)).not.toThrow();
    expect(written.metadata!.labels).toEqual(prepared.metadata.labels);
    expect(prepared.metadata.labels).toEqual(handoffLabels('pool-0'));
    expect(selects(handoffSelector('pool-0'), prepared.metadata.labels)).toBe(true);
  });

  it("is read back by the operator for the agent's VMI only", () => {
    const written = desiredHandoffSecret(handoff);
    expect(handoffFrom(written, 'vmi-1')).toEqual({
      kubeconfig: handoff.kubeconfig,
      ocpVersion: '4.16.0',
    });
    expect(handoffFrom(written, 'vmi-2')).toBeUndefined();
    expect(handoffFrom(buildHandoffSecret(instance, 'vmi-1'), 'vmi-1')).toBeUndefined();
  });
});
