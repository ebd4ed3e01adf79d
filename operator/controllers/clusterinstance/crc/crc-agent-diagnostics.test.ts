import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { Job, Pod, Secret } from '../../../kube/workloads.js';
import { DEFAULT_INSTANCE_TIMINGS } from '../core/timings.js';
import type { AgentObservation, CoreEvent } from './crc-agent-diagnostics.js';
import { agentPrerequisiteProblem, diagnoseAgent } from './crc-agent-diagnostics.js';
import {
  buildAgentBinding,
  buildAgentJob,
  buildAgentServiceAccount,
} from './crc-agent-builders.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
};
const baseJob = buildAgentJob(instance, {
  image: 'agent:1',
  vmiUid: 'vmi-1',
  vmiAddress: '10.0.0.7',
  hostname: 'api.example',
  pullSecretName: 'pull-secret',
  sshKey: { secretName: 'key', dataKey: 'id_ecdsa' },
});
const JOB = baseJob.metadata.name;
const HINT = `; inspect with kubectl -n ci describe job ${JOB}`;

const job = (status: Job['status'] = {}): Stored<Job> => ({
  ...baseJob,
  metadata: { ...baseJob.metadata, uid: 'job-uid', resourceVersion: '1' },
  status,
});
const pod = (name: string, status: Pod['status']): Stored<Pod> => ({
  metadata: { name, namespace: 'ci', uid: `${name}-uid`, resourceVersion: '1' },
  spec: { containers: [] },
  status,
});
const waiting = (reason: string): Pod['status'] => ({
  phase: 'Pending',
  containerStatuses: [
    {
      name: 'crc-agent',
      image: '',
      imageID: '',
      ready: false,
      restartCount: 0,
      state: { waiting: { reason } },
    },
  ],
});
const event = (kind: string, name: string, reason: string): CoreEvent => ({
  involvedObject: { kind, name, namespace: 'ci' },
  reason,
});
const handoff = (data: Record<string, string>): Secret => ({
  metadata: { name: 'pool-0-crc-raw-kubeconfig-vmi-1', namespace: 'ci' },
  data,
});

const seen = (overrides: Partial<AgentObservation>): AgentObservation => ({
  job: job(),
  pods: [],
  events: [],
  handoffReceived: false,
  jobHandoff: undefined,
  prerequisiteProblem: undefined,
  now: NOW,
  handoffGraceMs: DEFAULT_INSTANCE_TIMINGS.handoffGraceMs,
  ...overrides,
});
const completed = (at: string): Job['status'] => ({
  succeeded: 1,
  completionTime: at,
  conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: at }],
});

describe('the CRCAgent condition', () => {
  it.each<[string, Partial<AgentObservation>, string, string, string]>([
    [
      'a received handoff',
      { handoffReceived: true, job: job({ active: 1 }) },
      'True',
      'HandoffReceived',
      'valid VMI handoff received',
    ],
    [
      'a Job just completed',
      { job: job(completed('2026-01-01T00:09:50Z')) },
      'Unknown',
      'HandoffPending',
      'Job completed; waiting for the handoff Secret to reach the cache',
    ],
    [
      'a Job completed longer ago than a shorter grace',
      { job: job(completed('2026-01-01T00:09:50Z')), handoffGraceMs: 5_000 },
      'False',
      'HandoffInvalid',
      'handoff Secret ci/pool-0-crc-raw-kubeconfig-vmi-1 is missing; inspect crc-agent logs',
    ],
    [
      'a completed Job without a handoff',
      { job: job(completed('2026-01-01T00:09:00Z')) },
      'False',
      'HandoffInvalid',
      'handoff Secret ci/pool-0-crc-raw-kubeconfig-vmi-1 is missing; inspect crc-agent logs',
    ],
    [
      'a completed Job and an empty handoff',
      { job: job(completed('2026-01-01T00:09:00Z')), jobHandoff: handoff({}) },
      'False',
      'HandoffInvalid',
      'handoff Secret ci/pool-0-crc-raw-kubeconfig-vmi-1 has no kubeconfig',
    ],
    [
      'a completed Job and a handoff of another VMI',
      {
        job: job(completed('2026-01-01T00:09:00Z')),
        jobHandoff: handoff({ kubeconfig: 'eA==', vmiUID: 'dm1pLTI=' }),
      },
      'False',
      'HandoffInvalid',
      'handoff Secret ci/pool-0-crc-raw-kubeconfig-vmi-1 has a mismatched VMI UID (want vmi-1)',
    ],
    [
      'a missing prerequisite',
      { prerequisiteProblem: 'Secret key is missing' },
      'False',
      'AgentPrerequisiteMissing',
      'Secret key is missing',
    ],
    [
      'an image that cannot be pulled',
      { pods: [pod('p1', waiting('ImagePullBackOff'))] },
      'False',
      'AgentPodBlocked',
      'Pod p1 is waiting (ImagePullBackOff)',
    ],
    [
      'an unschedulable pod',
      {
        pods: [
          pod('p1', { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] }),
        ],
      },
      'False',
      'AgentPodBlocked',
      'Pod p1 cannot be scheduled',
    ],
    [
      'a failed pod while the Job retries',
      { pods: [pod('p1', { phase: 'Failed' }), pod('p2', { phase: 'Running' })] },
      'Unknown',
      'AgentRetrying',
      'a Pod failed; the Job retries',
    ],
    [
      'a Job that cannot create pods',
      { events: [event('Job', JOB, 'FailedCreate')] },
      'False',
      'AgentPodCreationFailed',
      'the Job cannot create its Pod (FailedCreate)',
    ],
    [
      'a pod whose volume cannot mount',
      { pods: [pod('p1', { phase: 'Pending' })], events: [event('Pod', 'p1', 'FailedMount')] },
      'False',
      'AgentPodBlocked',
      'Pod p1 is blocked (FailedMount)',
    ],
    [
      'an event of another pod',
      { pods: [pod('p1', { phase: 'Pending' })], events: [event('Pod', 'p9', 'FailedMount')] },
      'Unknown',
      'AgentWorking',
      'crc-agent is working',
    ],
    ['no pod yet', {}, 'Unknown', 'AgentPodPending', 'waiting for the Job to create a Pod'],
    [
      'a running pod',
      { pods: [pod('p1', { phase: 'Running' })] },
      'Unknown',
      'AgentWorking',
      'crc-agent is working',
    ],
  ])('%s', (_case, overrides, status, reason, detail) => {
    expect(diagnoseAgent(seen(overrides))).toEqual({
      status,
      reason,
      message: `crc-agent Job ci/${JOB}: ${detail}${HINT}`,
    });
  });

  it('fails the instance when the Job failed, naming the last pod', () => {
    const failed = job({
      conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
    });
    expect(diagnoseAgent(seen({ job: failed, pods: [pod('p1', {}), pod('p2', {})] }))).toEqual({
      failed: true,
      message: `crc-agent Job ci/${JOB}: Job failed (BackoffLimitExceeded); inspect Pod p2 events and crc-agent logs${HINT}`,
    });
  });
});

describe('agent prerequisites', () => {
  const account = buildAgentServiceAccount(instance);
  const binding = buildAgentBinding(instance, 'crc-agent-instance-role');
  const secrets: Record<string, Secret> = {
    'pull-secret': { data: { '.dockerconfigjson': 'e30=' } },
    key: { data: { id_ecdsa: 'a2V5' } },
    'pool-0-crc-identity': { data: { 'client.crt': 'eA==' } },
    'pool-0-crc-ssh-key': { data: { id_ed25519: 'a2V5' } },
  };
  const found = {
    serviceAccount: account,
    bindings: [binding],
    secrets: (name: string): Secret | undefined => secrets[name],
  };

  it('are met by the objects the topology makes', () => {
    expect(agentPrerequisiteProblem(baseJob, instance, found)).toBeUndefined();
  });

  it.each([
    [
      'another account',
      {
        ...baseJob,
        spec: {
          ...baseJob.spec,
          template: {
            ...baseJob.spec.template,
            spec: { ...baseJob.spec.template.spec, serviceAccountName: '' },
          },
        },
      },
      found,
      'Job uses unexpected ServiceAccount default',
    ],
    [
      'no account',
      baseJob,
      { ...found, serviceAccount: undefined },
      'ServiceAccount pool-0-crc-agent-6c6afab7c2cf is missing',
    ],
    [
      'no binding of ours',
      baseJob,
      {
        ...found,
        bindings: [{ ...binding, metadata: { ...binding.metadata, ownerReferences: [] } }],
      },
      'no RoleBinding of this ClusterInstance binds ServiceAccount pool-0-crc-agent-6c6afab7c2cf',
    ],
    [
      'no key data',
      baseJob,
      { ...found, secrets: (name: string) => (name === 'key' ? { data: {} } : secrets[name]) },
      'Secret key has no data key "id_ecdsa"',
    ],
    [
      'no identity',
      baseJob,
      {
        ...found,
        secrets: (name: string) => (name === 'pool-0-crc-identity' ? undefined : secrets[name]),
      },
      'Secret pool-0-crc-identity is missing',
    ],
  ])('are missing with %s', (_case, candidate, objects, problem) => {
    expect(agentPrerequisiteProblem(candidate, instance, objects)).toBe(problem);
  });
});
