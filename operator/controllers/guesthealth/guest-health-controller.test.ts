import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES, SECRETS } from '../../../client/api/resources.js';
import { issueSelfSignedCertificate } from '../../kube/self-signed-certificate.js';
import { controllerReference } from '../../kube/ownership.js';
import type { Stored } from '../../kube/objects.js';
import { writeKubeconfig } from '../../kube/strict-kubeconfig.js';
import { createLogger } from '../../runtime/logger.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import type { GuestHealthReport } from './guest-checks.js';
import { GuestHealthController } from './guest-health-controller.js';

const NS = 'tenant';
const context = { logger: createLogger('error') };
const healthy: GuestHealthReport = { checks: [{ name: 'readyz' }] };

/** A Ready instance and the kubeconfig Secret the operator published for it. */
function readyGuest(ports: ReturnType<typeof fakePorts>, name: string): Stored<ClusterInstance> {
  const host = `api-${name}.apps.example.test`;
  const instance = ports.api.seed<ClusterInstance>(INSTANCES, {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: { name, namespace: NS },
    spec: { type: 'hcp', template: { releaseImage: 'quay.io/x:1', ocpVersion: '4.16.10' } },
  } as ClusterInstance) as Stored<ClusterInstance>;
  const ca = issueSelfSignedCertificate(host, ports.clock.now()).certificatePem;
  const kubeconfig = writeKubeconfig(
    { server: `https://${host}`, ca, credentials: { token: `token-of-${name}` } },
    name,
  );
  ports.api.seed(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${name}-kubeconfig`,
      namespace: NS,
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
  });
  const status = {
    phase: 'Ready',
    apiEndpoint: `https://${host}`,
    kubeconfigSecretRef: { name: `${name}-kubeconfig` },
    kubeconfigSHA256: createHash('sha256').update(kubeconfig).digest('hex'),
  };
  return ports.api.seed(INSTANCES, {
    ...instance,
    status,
  } as ClusterInstance) as Stored<ClusterInstance>;
}

/** Whether a promise has settled once every pending microtask has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('the guest health controller', () => {
  it('checks guests off its worker: a guest that never answers holds up no pass', async () => {
    const ports = fakePorts();
    readyGuest(ports, 'hung');
    readyGuest(ports, 'fine');
    let answerHung: (report: GuestHealthReport) => void = () => undefined;
    const queued: string[] = [];
    const controller = new GuestHealthController(ports, {
      recheckMs: 60_000,
      random: () => 0.5,
      requeue: (key) => queued.push(key),
      check: (access) =>
        access.server.includes('hung')
          ? new Promise((resolve) => (answerHung = resolve))
          : Promise.resolve(healthy),
    });

    // The hung guest's pass starts its check and returns; so does the other's.
    expect(await settled(controller.reconcile(`${NS}/hung`, context))).toBe(true);
    expect(await controller.reconcile(`${NS}/fine`, context)).toEqual({ requeueAfterMs: 60_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued).toEqual([`${NS}/fine`]);
    await controller.reconcile(`${NS}/fine`, context);
    const fine = ports.api.peek<ClusterInstance>(INSTANCES, 'fine', NS);
    expect(fine?.status?.conditions?.find((c) => c.type === 'GuestHealthy')).toMatchObject({
      status: 'True',
    });
    const hung = ports.api.peek<ClusterInstance>(INSTANCES, 'hung', NS);
    expect(hung?.status?.guestHealth).toBeUndefined();

    // Its answer, when it comes, queues its pass, which records it.
    answerHung({ checks: [{ name: 'readyz', problem: '/readyz answered 503' }] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued).toEqual([`${NS}/fine`, `${NS}/hung`]);
    await controller.reconcile(`${NS}/hung`, context);
    const recorded = ports.api.peek<ClusterInstance>(INSTANCES, 'hung', NS);
    expect(recorded?.status?.conditions?.find((c) => c.type === 'GuestHealthy')).toMatchObject({
      status: 'False',
      reason: 'GuestUnhealthy',
      message: 'readyz: /readyz answered 503',
    });
  });
});
