import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import { applyProvisioningDeadline, provisioningDeadline } from './provisioning-deadline.js';
import { InstanceFailure } from './reasons.js';
import { InstanceStatusDraft } from './status-draft.js';

const MINUTE = 60_000;
const STARTED = Date.parse('2026-01-10T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

type Status = NonNullable<ClusterInstance['status']>;

const instance = (
  type: 'crc' | 'hcp',
  status: Partial<Status> = {},
  provisioningTimeout?: string,
): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1', generation: 1 },
  spec: {
    type,
    template: { ocpVersion: '4.16.10', memory: '8Gi', cores: 2 },
    ...(provisioningTimeout ? { provisioningTimeout } : {}),
  },
  status: { phase: 'Provisioning', provisioning: { startedAt: iso(STARTED) }, ...status },
});

const waitingDraft = (source: Stored<ClusterInstance>, now: number): InstanceStatusDraft =>
  new InstanceStatusDraft(source, now).waiting(
    'DataVolumePending',
    'waiting for DataVolume ci/pool-0 to be filled: phase ImportInProgress, progress 0.00%',
  );

describe('the provisioning deadline', () => {
  it('counts the topology default from when provisioning started', () => {
    const crc = provisioningDeadline(waitingDraft(instance('crc'), STARTED));
    const hcp = provisioningDeadline(waitingDraft(instance('hcp'), STARTED));
    expect(crc).toEqual({
      at: STARTED + 30 * MINUTE,
      timeoutMs: 30 * MINUTE,
      setting: 'the crc default',
    });
    expect(hcp).toEqual({
      at: STARTED + 45 * MINUTE,
      timeoutMs: 45 * MINUTE,
      setting: 'the hcp default',
    });
  });

  it('takes spec.provisioningTimeout, and counts from when the platform last became ready if later', () => {
    const platformReady = STARTED + 20 * MINUTE;
    const source = instance(
      'crc',
      {
        conditions: [
          {
            type: 'HyperConvergedReady',
            status: 'True',
            reason: 'OperandReady',
            message: 'HyperConverged is available',
            lastTransitionTime: iso(platformReady),
          },
        ],
      },
      '1h30m',
    );
    expect(provisioningDeadline(waitingDraft(source, STARTED))).toEqual({
      at: platformReady + 90 * MINUTE,
      timeoutMs: 90 * MINUTE,
      setting: 'spec.provisioningTimeout',
    });
  });

  it('does not apply to an instance that was Ready once, or one not authorized yet', () => {
    const wasReady = instance('crc', { firstReadyAt: iso(STARTED + MINUTE) });
    const readyBeforeTheField = instance('crc', { topology: 'crc' });
    const notStarted = instance('crc', { provisioning: undefined });
    for (const source of [wasReady, readyBeforeTheField, notStarted])
      expect(provisioningDeadline(waitingDraft(source, STARTED + 2 * 60 * MINUTE))).toBeUndefined();
  });

  it('records the deadline and asks for a pass at it while time is left', () => {
    const draft = waitingDraft(instance('crc', {}, '10m'), STARTED + MINUTE);
    const result = applyProvisioningDeadline(draft, { requeueAfterMs: 500 }, STARTED + MINUTE);
    expect(result).toEqual({ requeueAfterMs: 500, requeueAt: STARTED + 10 * MINUTE });
    expect(draft.status.provisioningDeadline).toBe(iso(STARTED + 10 * MINUTE));
  });

  it('fails the instance at the deadline, naming the wait it was in', () => {
    const now = STARTED + 10 * MINUTE;
    const draft = waitingDraft(instance('crc', {}, '10m'), now);
    let failure: unknown;
    try {
      applyProvisioningDeadline(draft, {}, now);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(InstanceFailure);
    const { reason, message, conditions } = failure as InstanceFailure;
    expect(reason).toBe('ProvisioningTimedOut');
    expect(message).toBe(
      'Provisioning did not finish within 10m0s (spec.provisioningTimeout); it was still waiting: DataVolumePending: waiting for DataVolume ci/pool-0 to be filled: phase ImportInProgress, progress 0.00%',
    );
    expect(conditions).toEqual([
      {
        type: 'ProvisioningTimedOut',
        status: 'True',
        reason: 'DataVolumePending',
        message:
          'waiting for DataVolume ci/pool-0 to be filled: phase ImportInProgress, progress 0.00%',
      },
    ]);
  });

  it('drops the deadline and the timed-out condition once the instance is Ready', () => {
    const source = instance('crc', {
      provisioningDeadline: iso(STARTED + 10 * MINUTE),
      conditions: [
        {
          type: 'ProvisioningTimedOut',
          status: 'True',
          reason: 'DataVolumePending',
          message: 'waiting',
          lastTransitionTime: iso(STARTED),
        },
      ],
    });
    const draft = new InstanceStatusDraft(source, STARTED + 11 * MINUTE).ready({
      ocpVersion: '4.16.10',
      apiEndpoint: 'https://api.example.test',
      kubeconfig: { secretName: 'pool-0-kubeconfig', sha256: 'a'.repeat(64) },
    });
    expect(applyProvisioningDeadline(draft, {}, STARTED + 11 * MINUTE)).toEqual({});
    expect(draft.status.provisioningDeadline).toBeUndefined();
    expect(draft.hasCondition('ProvisioningTimedOut')).toBe(false);
    expect(draft.status.firstReadyAt).toBe(iso(STARTED + 11 * MINUTE));
  });
});
