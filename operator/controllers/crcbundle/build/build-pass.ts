import { JOBS, LABEL_JOB_NAME, PODS } from '../../../api/core-resources.js';
import { isForbidden } from '../../../kube/api-error.js';
import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { NamespacedType } from '../../../kube/resource-type.js';
import type { Job, Pod, Secret } from '../../../kube/workloads.js';
import { SECRETS } from '../../../api/resources.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import type { ControllerPorts } from '../../../runtime/ports.js';
import type { BuildJobSpec, BuildStep } from '../../../../contracts/bundle-build.js';
import { controlledBy } from '../bundle-owner.js';
import type { BundleSettings } from '../bundle-settings.js';
import type { Bundle } from './build-meta.js';
import { LABEL_BUILD_ATTEMPT } from './build-meta.js';
import type { BuildNames } from './build-names.js';
import {
  ANNOTATION_BUILD_VMI,
  buildStepJob,
  stepDeadlineSeconds,
  stepOutcome,
} from './build-jobs.js';
import type { BuildRecord, Role } from './build-record.js';
import { objectOf, stepKey, stepOf, withObject, withStep } from './build-record.js';

/** What a stage says: done, waiting (why), recorded something (write it first), or failed. */
export type StageResult =
  | { done: true }
  | { wait: string; requeueAfterMs?: number }
  | { record: true }
  | { fail: string; message: string };

export const RECORDED = { record: true } as const;

/** Thrown by a pass helper: the build fails with this reason and message. */
export class BuildFailure extends Error {
  override name = 'BuildFailure';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The apiserver refused to create an object of the build (a ResourceQuota, an admission policy):
 * the stage says so and the pass is tried again with backoff; nothing is lost meanwhile.
 */
export class CreateRefused extends Error {
  override name = 'CreateRefused';
}

/**
 * The failure for a recorded object that is gone (or being deleted), or of another UID: a stage
 * never goes on with an object it did not make.
 */
export function lostOrReplaced(
  object: { role: string; kind: string; namespace: string; name: string; uid: string },
  found: Stored<KubeObject> | undefined,
): BuildFailure | undefined {
  const what = `${object.kind} ${object.namespace}/${object.name} (${object.role})`;
  if (!found || found.metadata.deletionTimestamp)
    return new BuildFailure(
      'BuildObjectLost',
      `${what} was deleted during the build: create a new CRCBundle to build again`,
    );
  if (found.metadata.uid !== object.uid)
    return new BuildFailure(
      'BuildObjectReplaced',
      `${what} was replaced during the build (UID ${found.metadata.uid}, the build made ${object.uid})`,
    );
  return undefined;
}

/** Everything one pass of one build works with, and the status draft it fills. */
export class BuildPass {
  readonly ports: ControllerPorts;
  readonly settings: BundleSettings;
  readonly context: ReconcileContext;

  constructor(
    readonly bundle: Bundle,
    public build: BuildRecord,
    readonly names: BuildNames,
    env: { ports: ControllerPorts; settings: BundleSettings; context: ReconcileContext },
  ) {
    this.ports = env.ports;
    this.settings = env.settings;
    this.context = env.context;
  }

  get namespace(): string {
    return this.settings.operatorNamespace;
  }

  get attempt(): string {
    return this.build.attempt ?? '';
  }

  /** The live object of a name, from the cache, confirmed by a live read when absent. */
  async current<T extends KubeObject>(
    type: NamespacedType,
    name: string,
  ): Promise<Stored<T> | undefined> {
    const cached = (await this.ports.cache.read<T>(type)).get(name, this.namespace);
    return cached ?? this.ports.client.getOrUndefined<T>(type, name, this.namespace);
  }

  /** Whether an object is this attempt's: controlled by the bundle and labelled with the attempt. */
  ours(object: KubeObject | undefined): boolean {
    return (
      controlledBy(object, this.bundle) &&
      object?.metadata?.labels?.[LABEL_BUILD_ATTEMPT] === this.attempt
    );
  }

  /**
   * The build's object of a role: created when the attempt has none, its UID recorded before
   * anything uses it; then only checked (lostOrReplaced).
   */
  async ensure<T extends KubeObject>(
    role: Role,
    type: NamespacedType,
    name: string,
    desired: () => T | Promise<T>,
  ): Promise<Stored<T> | typeof RECORDED> {
    const recorded = objectOf(this.build, role);
    const found = await this.current<T>(type, name);
    if (recorded?.uid) {
      const failure = lostOrReplaced(
        { role, kind: type.kind, namespace: this.namespace, name, uid: recorded.uid },
        found,
      );
      if (failure) throw failure;
      return found!;
    }
    if (found && !this.ours(found))
      throw new BuildFailure(
        'BuildObjectConflict',
        `${type.kind} ${this.namespace}/${name} exists and is not this build's: delete it or rename the CRCBundle`,
      );
    const object = found ?? (await this.create<T>(type, await desired()));
    if (!found) this.context.logger.info({ name, role }, `Created ${type.kind}`);
    this.record(role, type, object);
    return RECORDED;
  }

  /** Creates an object of the build; one the apiserver refuses (403) is a CreateRefused. */
  async create<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>> {
    try {
      return await this.ports.client.create<T>(type, object);
    } catch (error) {
      if (!isForbidden(error)) throw error;
      throw new CreateRefused(
        `creating ${type.kind} ${this.namespace}/${object.metadata?.name} was refused: ${(error as Error).message}`,
      );
    }
  }

  /** Records an object (name and UID) of a role in the draft. */
  record(role: Role, type: NamespacedType, object: Stored<KubeObject>): void {
    this.build = withObject(this.build, {
      role,
      kind: type.kind,
      namespace: this.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid,
    });
  }

  /**
   * Runs one agent step of a stage: its Job (bound to `spec.vmiUid`) is made and recorded, then
   * its outcome read; done once recorded as completed. A recorded Job that is gone is made again
   * (the step repeats; steps are idempotent); a failed one fails the build.
   */
  async step(
    phase: string,
    stageName: string,
    spec: Omit<BuildJobSpec, 'bundleName' | 'bundleUid' | 'attempt' | 'releaseImage'>,
  ): Promise<StageResult> {
    const key = stepKey(phase, spec.step);
    const recorded = stepOf(this.build, key);
    if (recorded?.completedAt) return { done: true };
    const name = this.names.job(phase, spec.step);
    const job = await this.current<Job>(JOBS, name);
    if (!job || (recorded?.jobUID && job.metadata.uid !== recorded.jobUID)) {
      if (job && !this.ours(job)) return { wait: `Job ${name} is being replaced` };
      if (job) return { wait: `a Job ${name} of an earlier run of this step is going` };
      return this.startStep(key, name, spec);
    }
    if (!recorded) {
      if (!this.ours(job))
        throw new BuildFailure('BuildObjectConflict', `Job ${name} is not this build's`);
      this.build = withStep(this.build, stepRecord(key, job, spec.vmiUid));
      return RECORDED;
    }
    return this.finishStep(key, stageName, job, spec);
  }

  /** A recorded Job of a step: bound to the right VMI, and how it ended. */
  private async finishStep(
    key: string,
    stageName: string,
    job: Stored<Job>,
    spec: Omit<BuildJobSpec, 'bundleName' | 'bundleUid' | 'attempt' | 'releaseImage'>,
  ): Promise<StageResult> {
    const name = job.metadata.name;
    if (job.metadata.annotations?.[ANNOTATION_BUILD_VMI] !== spec.vmiUid) {
      // Made for a VMI that is gone: its result says nothing about this one.
      await this.ports.client.deleteIfExists(JOBS, job, { propagationPolicy: 'Background' });
      return { wait: `the ${spec.step} Job was bound to another VMI; running it again` };
    }
    const pods = (
      await this.ports.client.list<Pod>(PODS, {
        namespace: this.namespace,
        labelSelector: `${LABEL_JOB_NAME}=${name}`,
      })
    ).filter((pod) => controlledBy(pod, job));
    const outcome = stepOutcome(spec.step, job, pods);
    if ('running' in outcome) return { wait: `the ${spec.step} step is running (Job ${name})` };
    if (!outcome.ok)
      throw new BuildFailure(
        outcome.reason ?? `${stageName}Failed`,
        `the ${spec.step} step failed (Job ${this.namespace}/${name}): ${outcome.message}`,
      );
    this.build = withStep(this.build, {
      ...stepRecord(key, job, spec.vmiUid),
      completedAt: new Date(this.ports.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      outputs: outcome.outputs,
    });
    return RECORDED;
  }

  private async startStep(
    key: string,
    name: string,
    spec: Omit<BuildJobSpec, 'bundleName' | 'bundleUid' | 'attempt' | 'releaseImage'>,
  ): Promise<StageResult> {
    const inputs = await this.current<Secret>(SECRETS, this.names.inputs);
    const desired = buildStepJob(this.bundle, this.namespace, this.names, {
      name,
      image: this.settings.crcAgentImage,
      deadlineSeconds: stepDeadlineSeconds(spec.step, this.settings.timings.build),
      spec: {
        ...spec,
        bundleName: this.bundle.metadata.name,
        bundleUid: this.bundle.metadata.uid,
        attempt: this.attempt,
        releaseImage: this.bundle.spec.build?.releaseImage ?? '',
      },
      inputs: this.build.inputs ?? [],
      snapshotKeys: Object.keys(inputs?.data ?? {}),
    });
    const job = await this.create<Job>(JOBS, desired);
    this.context.logger.info({ job: name, step: spec.step }, 'Started build step');
    this.build = withStep(this.build, stepRecord(key, job, spec.vmiUid));
    return RECORDED;
  }
}

function stepRecord(key: string, job: Stored<Job>, vmiUid: string) {
  return { name: key, jobName: job.metadata.name, jobUID: job.metadata.uid, vmiUID: vmiUid };
}

export type { BuildStep };
