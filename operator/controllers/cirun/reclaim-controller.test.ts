import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import { GitHubStandIn } from '../../../test/support/github-stand-in.js';
import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import { findCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES, SECRETS } from '../../api/resources.js';
import { ReclaimController } from './reclaim-controller.js';

const NS = 'ci';
const MINUTE = 60_000;

describe('the reclaim controller on fake ports', () => {
  let standIn: GitHubStandIn;
  let ports: FakePorts;
  let controller: ReclaimController;
  beforeAll(async () => {
    standIn = await GitHubStandIn.start(() => ports.clock.now());
    standIn.acceptToken('ghp_unit');
  });
  afterAll(() => standIn.stop());
  beforeEach(() => {
    ports = fakePorts();
    controller = new ReclaimController(
      ports,
      {
        operatorNamespace: 'operator',
        github: {
          credentialsSecret: 'github',
          apiUrl: standIn.url,
          allowedRepositories: ['acme/app'],
          caCertificates: standIn.ca,
          pollIntervalMs: 2 * MINUTE,
          backoff: { baseMs: MINUTE, maxMs: 8 * MINUTE, jitter: 0 },
        },
      },
      pino({ level: 'silent' }),
    );
  });

  const seedSecret = (token = 'ghp_unit'): void =>
    void ports.api.seed(SECRETS, {
      metadata: { name: 'github', namespace: 'operator' },
      data: { token: Buffer.from(token).toString('base64') },
    });
  const seedLease = (name: string, runId: number): void =>
    void ports.api.seed<ClusterLease>(LEASES, {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      metadata: {
        name,
        namespace: NS,
        annotations: {
          [RUN_ANNOTATIONS.repository]: 'acme/app',
          [RUN_ANNOTATIONS.runId]: String(runId),
          [RUN_ANNOTATIONS.runAttempt]: '1',
        },
      },
      spec: { poolRef: { name: 'pool' } },
    });
  const condition = (name: string) =>
    findCondition(
      ports.api.peek<ClusterLease>(LEASES, name, NS)?.status?.conditions,
      'RunCompleted',
    );

  it('writes the condition once, and a second pass within the interval asks and writes nothing', async () => {
    seedSecret();
    standIn.setJobs('acme/app', 501, 1, [
      { id: 1, name: 'e2e', status: 'in_progress', conclusion: null },
    ]);
    seedLease('a', 501);
    seedLease('b', 501);
    expect(await controller.reconcile(`${NS}/a`)).toEqual({ requeueAfterMs: 2 * MINUTE });
    const writes = [...ports.api.writes];
    expect(await controller.reconcile(`${NS}/a`)).toEqual({ requeueAfterMs: 2 * MINUTE });
    expect(ports.api.writes).toEqual(writes);
    await controller.reconcile(`${NS}/b`);
    expect(condition('b')).toMatchObject({ status: 'False', reason: 'AttemptInProgress' });
    expect(standIn.jobRequests('acme/app', 501)).toHaveLength(1);
  });

  it('deletes a completed job’s lease as its TTL would, after the condition and the Event', async () => {
    seedSecret();
    standIn.setJobs('acme/app', 502, 1, [
      { id: 2, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    seedLease('done', 502);
    expect(await controller.reconcile(`${NS}/done`)).toEqual({});
    expect(ports.api.writes).toEqual([
      `status ClusterLease ${NS}/done`,
      `delete ClusterLease ${NS}/done`,
    ]);
    expect(ports.events.recorded).toEqual([
      {
        object: `ClusterLease ${NS}/done`,
        type: 'Normal',
        reason: 'RunCompleted',
        message:
          'GitHub reports that all 1 jobs of run 502 attempt 1 of acme/app completed (success: 1); releasing the cluster',
      },
    ]);
  });

  it('without the credentials Secret asks nothing and says CredentialInvalid', async () => {
    seedLease('nosecret', 503);
    const result = await controller.reconcile(`${NS}/nosecret`);
    expect(result).toEqual({ requeueAfterMs: MINUTE });
    expect(condition('nosecret')).toMatchObject({
      status: 'Unknown',
      reason: 'CredentialInvalid',
      message: expect.stringContaining('Secret github does not exist in the operator namespace'),
    });
    expect(standIn.jobRequests('acme/app', 503)).toHaveLength(0);
  });

  it('a refused token says CredentialRejected, backs off, and never releases', async () => {
    seedSecret('ghp_revoked');
    standIn.setJobs('acme/app', 504, 1, [
      { id: 4, name: 'e2e', status: 'completed', conclusion: 'success' },
    ]);
    seedLease('refused', 504);
    expect(await controller.reconcile(`${NS}/refused`)).toEqual({ requeueAfterMs: MINUTE });
    expect(condition('refused')).toMatchObject({
      status: 'Unknown',
      reason: 'CredentialRejected',
      message: expect.stringContaining('401 Bad credentials'),
    });
    expect(ports.api.peek(LEASES, 'refused', NS)).toBeDefined();
    expect(standIn.jobRequests('acme/app', 504).map((r) => r.status)).toEqual([401]);
  });
});
