import { beforeEach, describe, expect, it } from '@jest/globals';
import { findCondition } from '../../api/conditions.js';
import {
  CONFIG_MAPS,
  JOBS,
  LABEL_JOB_NAME,
  NETWORK_POLICIES,
  PODS,
  PVCS,
  SERVICES,
} from '../../../client/api/core-resources.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { Job } from '../../kube/workloads.js';
import { createLogger } from '../../runtime/logger.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import type { BuildStep, BuildStepOutputs } from '../../../contracts/bundle-build.js';
import { LABEL_BUILD_STEP } from '../../../contracts/bundle-build.js';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import type { BundleSettings } from '../bundles/bundle-settings.js';
import { BuildController, CLEANED_UP, FINALIZER_BUILD_CLEANUP } from './build-controller.js';
import { BUILD_CONTAINER } from './build-jobs.js';
import { LABEL_BUILD_ATTEMPT } from './build-meta.js';
import type { BuildNames } from './build-names.js';
import { buildNames } from './build-names.js';
import { stageNamed } from './build-stages.js';
import { stageLabel } from './stage-row.js';

const OPS = 'guestcluster-operator-system';
const NAME = 'built';
const context = { logger: createLogger('error') };
const RESOLVE = stageNamed('Resolve').stage;
const DNS = stageNamed('DNS').stage;
const SETTINGS: BundleSettings = {
  operatorNamespace: OPS,
  crcAgentImage: 'agent:test',
  crcBundleMirrorUrl: 'https://mirror.example.test',
  crc: { allowedVersions: undefined, maxPreparing: 2, maxBuilding: 1 },
  timings: { build: DEFAULT_TIMINGS.build },
};

type Any = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};

/** What each played step leaves: the outputs its Job's termination message carries. */
const OUTPUTS: Partial<{ [S in BuildStep]: BuildStepOutputs[S] }> = {
  resolve: {
    ocpVersion: '4.22.1',
    releaseDigest: `sha256:${'c'.repeat(64)}`,
    isoUrl: 'https://mirror.example.test/live.iso',
    isoSha256: 'd'.repeat(64),
  },
  'dns-check': { answered: 'api-int.crc.testing=192.168.126.11' },
  ignition: { certificateNotBefore: '2026-11-30T12:00:00Z' },
  iso: { liveIsoSha256: 'e'.repeat(64) },
  'install-wait': { clusterVersion: '4.22.1' },
};

/**
 * BuildController.reconcile on in-memory ports: every case reconciles the passes a bundle gets,
 * one by one, and then the last one again, which must change nothing. The step Jobs, VMIs and
 * ClusterIPs that the Job controller, KubeVirt and Kubernetes would give are played between
 * passes. The integration tests (test/crc/bundle-build*.test.ts) stay the proof of the whole.
 */
describe('BuildController.reconcile', () => {
  let ports: FakePorts;
  let controller: BuildController;

  beforeEach(() => {
    ports = fakePorts();
    controller = new BuildController(ports, SETTINGS);
    seedInputs();
  });

  const seed = (type: ResourceType, object: Any): Any => ports.api.seed<Any>(type, object);
  const bundle = (): CRCBundle | undefined => ports.api.peek<CRCBundle>(BUNDLES, NAME);
  const condition = (type: string) => findCondition(bundle()?.status?.conditions, type);
  const reasons = (): string[] => ports.events.recorded.map((e) => e.reason);
  const names = (): BuildNames => buildNames(NAME, bundle()!.status!.build!.attempt!);
  const recorded = (role: string) => bundle()?.status?.build?.objects?.find((o) => o.role === role);
  const writesOf = (kind: string): string[] =>
    ports.api.writes.filter((w) => w.split(' ')[1] === kind);

  function seedInputs(): void {
    seed(SECRETS, {
      metadata: { name: 'build-pull-secret', namespace: OPS },
      data: {
        '.dockerconfigjson': Buffer.from('{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}').toString(
          'base64',
        ),
      },
    });
    seed(CONFIG_MAPS, {
      metadata: { name: 'build-machineconfigs', namespace: OPS },
      data: { '99-extra.yaml': 'kind: MachineConfig\n' },
    });
  }

  function seedBundle(name = NAME): void {
    seed(BUNDLES, {
      metadata: { name },
      spec: {
        build: {
          releaseImage: `quay.io/openshift-release-dev/ocp-release@sha256:${'c'.repeat(64)}`,
          pullSecretRef: { name: 'build-pull-secret' },
          installationManifestRefs: [{ name: 'build-machineconfigs' }],
          // Without rotation the ignition is one Job: no installer VM to play.
          certificateRotation: 'Disabled',
          vm: { cores: 2, memory: '4Gi', diskSize: '1Gi' },
        },
      },
    });
  }

  /** One pass; returns the writes it made. */
  async function pass(by = controller): Promise<string[]> {
    const before = ports.api.writes.length;
    await by.reconcile(NAME, context);
    return ports.api.writes.slice(before);
  }

  /**
   * The passes while they write; then the last pass again, which must change nothing: no write,
   * no Event, the same result. Returns each writing pass's writes.
   */
  async function settle(by = controller, limit = 12): Promise<string[][]> {
    const passes: string[][] = [];
    for (;;) {
      const writes = ports.api.writes.length;
      const events = ports.events.recorded.length;
      const first = await by.reconcile(NAME, context);
      const made = ports.api.writes.slice(writes);
      if (made.length > 0) {
        passes.push(made);
        if (passes.length > limit) throw new Error(`no fixed point after ${limit} passes`);
        continue;
      }
      expect(ports.events.recorded.length).toBe(events);
      expect(await by.reconcile(NAME, context)).toEqual(first);
      expect(ports.api.writes.length).toBe(writes);
      return passes;
    }
  }

  /** The attempt's Job of a step, once the build made it. */
  const jobOf = (step: BuildStep): Job | undefined =>
    ports.api
      .all<Job>(JOBS, OPS)
      .find(
        (job) =>
          job.metadata?.labels?.[LABEL_BUILD_STEP] === step &&
          job.metadata.labels[LABEL_BUILD_ATTEMPT] === bundle()?.status?.build?.attempt,
      );

  /** The Job controller's part: the step's pod ends with this result, and the Job with it. */
  function endStep(step: BuildStep, result: { ok: boolean; reason?: string }): void {
    const job = jobOf(step)!;
    const message = result.ok
      ? { step, ok: true, outputs: OUTPUTS[step] ?? {} }
      : { step, ok: false, reason: result.reason, message: `the ${step} step failed here` };
    seed(PODS, {
      metadata: {
        name: `${job.metadata!.name}-pod`,
        namespace: OPS,
        labels: { ...job.spec.template.metadata?.labels, [LABEL_JOB_NAME]: job.metadata!.name! },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: job.metadata!.name!,
            uid: job.metadata!.uid!,
            controller: true,
          },
        ],
      },
      status: {
        containerStatuses: [
          {
            name: BUILD_CONTAINER,
            state: {
              terminated: {
                exitCode: result.ok ? 0 : 1,
                message: JSON.stringify(message),
                finishedAt: '2026-12-01T12:00:00Z',
              },
            },
          },
        ],
      },
    });
    seed(JOBS, {
      ...(job as Any),
      status: result.ok
        ? { succeeded: 1 }
        : {
            failed: 2,
            conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }],
          },
    });
  }

  /** KubeVirt's part: the VM's VMI runs and has an address. */
  function runVmi(vmName: string): Any {
    const vm = ports.api.peek<Any>(VIRTUAL_MACHINES, vmName, OPS)!;
    return seed(VIRTUAL_MACHINE_INSTANCES, {
      metadata: {
        name: vmName,
        namespace: OPS,
        labels: (vm.spec?.template as { metadata?: { labels?: Record<string, string> } }).metadata
          ?.labels,
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachine',
            name: vmName,
            uid: vm.metadata!.uid!,
            controller: true,
          },
        ],
      },
      spec: { domain: {} },
      status: { phase: 'Running', interfaces: [{ ipAddress: '10.0.2.2' }] },
    });
  }

  /** The apiserver's part: the build DNS Service gets its ClusterIP. */
  function assignClusterIp(): void {
    const service = ports.api.peek<Any>(SERVICES, names().dns, OPS)!;
    seed(SERVICES, { ...service, spec: { ...service.spec, clusterIP: '172.30.0.10' } });
  }

  /**
   * Passes, one by one, and what the platform would do once the build waits (a step's Job ends,
   * the DNS Service gets an address), until the build has just moved into `stage`.
   */
  async function driveTo(stage: string): Promise<void> {
    for (let round = 0; bundle()?.status?.build?.stage !== stage; round++) {
      if (round > 60) throw new Error(`the build did not reach ${stage}`);
      if ((await pass()).length > 0) continue;
      const current = stageNamed(bundle()?.status?.build?.stage).stage;
      const running = current.steps.find((step) => jobOf(step) && !jobOf(step)?.status);
      if (running) endStep(running, { ok: true });
      else if (current.name === 'DNS') assignClusterIp();
      else throw new Error(`the build waits in ${current.name} for nothing played here`);
    }
  }

  /** The garbage collector's part: objects whose controller is gone go too. */
  async function collectGarbage(): Promise<void> {
    const kinds = [PODS, VIRTUAL_MACHINE_INSTANCES, PVCS];
    const uids = new Set(
      [JOBS, VIRTUAL_MACHINES, DATA_VOLUMES, ...kinds].flatMap((type) =>
        ports.api.all<Any>(type, OPS).map((o) => o.metadata!.uid!),
      ),
    );
    for (const type of kinds)
      for (const object of ports.api.all<Any>(type, OPS)) {
        const owner = object.metadata?.ownerReferences?.find((r) => r.controller);
        if (owner && owner.kind !== 'CRCBundle' && !uids.has(owner.uid))
          await ports.api.delete(type, object.metadata!.name!, OPS);
      }
  }

  it('gives a new build its finalizer, records the attempt, then each object before it is used', async () => {
    seedBundle();
    expect(await pass()).toEqual(['update CRCBundle built']);
    expect(bundle()?.metadata?.finalizers).toEqual([FINALIZER_BUILD_CLEANUP]);
    expect(await settle()).toEqual([
      // The attempt and the inputs' digests, before anything is made.
      ['status CRCBundle built'],
      // Then one object per pass, each recorded before the next is made: the guests' policy
      // first (before any VM), the inputs' snapshot, the build key, the work volume, the step.
      [expect.stringMatching(/^create NetworkPolicy .*-guests$/), 'status CRCBundle built'],
      [expect.stringMatching(/^create Secret .*-inputs$/), 'status CRCBundle built'],
      [expect.stringMatching(/^create Secret .*-ssh$/), 'status CRCBundle built'],
      [expect.stringMatching(/^create PersistentVolumeClaim .*-work$/), 'status CRCBundle built'],
      [expect.stringMatching(/^create Job .*-p0-resolve$/), 'status CRCBundle built'],
      // And the stage says what it waits for.
      ['status CRCBundle built'],
    ]);
    const build = bundle()!.status!.build!;
    expect(bundle()?.status?.phase).toBe('Preparing');
    expect(build).toMatchObject({ stage: 'Resolve', profile: 'crc-kubevirt-v1' });
    expect(build.inputs?.map((i) => [i.role, i.name])).toEqual([
      ['PullSecret', 'build-pull-secret'],
      ['InstallationManifest', 'build-machineconfigs'],
    ]);
    expect(build.objects?.map((o) => o.role)).toEqual([
      'GuestNetworkPolicy',
      'InputsSnapshot',
      'SSHKey',
      'WorkVolume',
    ]);
    expect(build.steps).toEqual([
      expect.objectContaining({
        name: `${RESOLVE.code}-resolve`,
        jobName: names().job(RESOLVE.code, 'resolve'),
      }),
    ]);
    expect(condition('Resolved')).toMatchObject({ status: 'False', reason: 'InProgress' });
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'Building',
      message: expect.stringContaining(`${stageLabel(RESOLVE)}: the resolve step is running`),
    });
    expect(reasons()).toEqual(['BuildStarted']);
  });

  it('waits for a missing input without starting, and starts once it is there', async () => {
    ports.api
      .all<Any>(SECRETS, OPS)
      .forEach((s) => void ports.api.delete(SECRETS, s.metadata!.name!, OPS));
    seedBundle();
    await pass();
    expect(await settle()).toEqual([['status CRCBundle built']]);
    expect(bundle()?.status).toMatchObject({ phase: 'Pending' });
    expect(bundle()?.status?.build).toBeUndefined();
    expect(condition('Ready')).toMatchObject({
      reason: 'WaitingForInputs',
      message: expect.stringContaining(
        `Secret ${OPS}/build-pull-secret (PullSecret) does not exist`,
      ),
    });
    seedInputs();
    await settle();
    expect(bundle()?.status?.build?.attempt).toMatch(/^[a-z0-9]{6}$/);
  });

  it('waits for a build slot while as many builds as allowed run', async () => {
    seedBundle('other');
    await new BuildController(ports, SETTINGS).reconcile('other', context);
    await new BuildController(ports, SETTINGS).reconcile('other', context);
    expect(ports.api.peek<CRCBundle>(BUNDLES, 'other')?.status?.phase).toBe('Preparing');
    seedBundle();
    await pass();
    expect(await settle()).toEqual([['status CRCBundle built']]);
    expect(condition('Ready')).toMatchObject({
      reason: 'WaitingForBuildSlot',
      message: expect.stringContaining('1 CRCBundle build(s) are running (other)'),
    });
  });

  it('resumes after a restart mid-stage with the VM it made: a fresh controller makes no second one', async () => {
    seedBundle();
    await pass();
    await driveTo('Boot');
    // The root disk is made and recorded; the target VM is made, and the operator dies before
    // the status that records it is written.
    expect(await pass()).toEqual([
      expect.stringMatching(/^create DataVolume .*-rootdisk$/),
      'status CRCBundle built',
    ]);
    const updateStatus = ports.api.updateStatus.bind(ports.api);
    ports.api.updateStatus = () => Promise.reject(new Error('the operator died'));
    await expect(controller.reconcile(NAME, context)).rejects.toThrow('the operator died');
    ports.api.updateStatus = updateStatus;
    expect(ports.api.all(VIRTUAL_MACHINES, OPS)).toHaveLength(1);
    expect(recorded('TargetVM')).toBeUndefined();

    // A new operator: it finds the VM by its name, attempt and owner, and records it.
    const restarted = new BuildController(ports, SETTINGS);
    const vm = ports.api.all<Any>(VIRTUAL_MACHINES, OPS)[0]!;
    expect(await settle(restarted)).toEqual([
      ['status CRCBundle built'],
      ['status CRCBundle built'],
    ]);
    expect(writesOf('VirtualMachine').filter((w) => w.startsWith('create'))).toHaveLength(1);
    expect(recorded('TargetVM')?.uid).toBe(vm.metadata!.uid);
    expect(condition('Booted')).toMatchObject({
      status: 'False',
      message: expect.stringContaining(`waiting for VMI ${OPS}/${names().targetVm} to start`),
    });

    // Yet another restart once the VMI runs: the same VM, its VMI recorded, the next stage's Job.
    runVmi(names().targetVm);
    const again = new BuildController(ports, SETTINGS);
    await settle(again);
    expect(ports.api.all(VIRTUAL_MACHINES, OPS)).toHaveLength(1);
    expect(bundle()?.status?.build).toMatchObject({ stage: 'InstallWait' });
    expect(condition('Booted')).toMatchObject({ status: 'True', reason: 'StageCompleted' });
    const install = jobOf('install-wait')!;
    expect(install.metadata?.annotations).toEqual({
      'guestcluster.opdev.io/bundle-build-vmi-uid': recorded('TargetVMI')?.uid,
    });
  });

  it('fails with the agent reason, says so once, and leaves nothing of the attempt behind', async () => {
    seedBundle();
    await pass();
    await driveTo('DNS');
    await settle();
    assignClusterIp();
    await settle();
    endStep('dns-check', { ok: false, reason: 'DNSCheckFailed' });
    await settle();
    expect(bundle()?.status?.phase).toBe('Failed');
    expect(condition('BuildDNSReady')).toMatchObject({ status: 'False', reason: 'DNSCheckFailed' });
    expect(condition('Ready')).toMatchObject({
      status: 'False',
      reason: 'DNSCheckFailed',
      message: expect.stringContaining(`${stageLabel(DNS)} failed: the dns-check step failed`),
    });
    expect(reasons().filter((r) => r === 'DNSCheckFailed')).toHaveLength(1);
    // The teardown: what runs first, then, once the pods are gone, the storage and the rest.
    await collectGarbage();
    await settle();
    expect(condition(CLEANED_UP)).toMatchObject({ status: 'True', reason: 'WorkObjectsDeleted' });
    for (const type of [
      JOBS,
      PODS,
      SECRETS,
      CONFIG_MAPS,
      PVCS,
      SERVICES,
      DEPLOYMENTS,
      NETWORK_POLICIES,
      INSTANCES,
    ])
      expect(
        ports.api
          .all<Any>(type, OPS)
          .filter((o) => o.metadata?.labels?.[LABEL_BUILD_ATTEMPT])
          .map((o) => o.metadata!.name),
      ).toEqual([]);
    // The inputs are the admin's: they stay.
    expect(ports.api.peek(SECRETS, 'build-pull-secret', OPS)).toBeDefined();
    expect(bundle()?.metadata?.finalizers).toEqual([FINALIZER_BUILD_CLEANUP]);
  });

  it('when deleted, stops what runs, then removes the storage, then lets the bundle go', async () => {
    seedBundle();
    await pass();
    await driveTo('Boot');
    await settle();
    await ports.api.delete(BUNDLES, NAME);
    expect(bundle()?.metadata?.deletionTimestamp).toBeDefined();
    await pass();
    expect(writesOf('Job').filter((w) => w.startsWith('delete'))).not.toEqual([]);
    expect(writesOf('VirtualMachine').filter((w) => w.startsWith('delete'))).toHaveLength(1);
    // The pods of the Jobs still hold the volumes: the storage waits for them.
    expect(ports.api.all<Any>(PVCS, OPS)).not.toEqual([]);
    expect(bundle()).toBeDefined();
    await collectGarbage();
    await pass();
    await collectGarbage();
    await pass();
    expect(bundle()).toBeUndefined();
    expect(ports.api.all<Any>(PVCS, OPS)).toEqual([]);
    expect(ports.api.all<Any>(VIRTUAL_MACHINES, OPS)).toEqual([]);
  });

  it('leaves a download bundle to the download controller', async () => {
    seed(BUNDLES, { metadata: { name: NAME }, spec: { version: '4.16.0' } });
    expect(await pass()).toEqual([]);
    expect(await pass()).toEqual([]);
  });
});
