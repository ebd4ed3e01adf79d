import { isForbidden } from '../../../client/kube/api-error.js';
import type { KubeObject, Stored } from '../../kube/objects.js';
import type { NamespacedType } from '../../../client/kube/resource-type.js';
import type { ObjectSource } from '../../reconcile/object-source.js';
import { current, portsSource } from '../../reconcile/object-source.js';
import type { ObjectRecord, RecordOwner, RecordStore } from '../../reconcile/recorded-objects.js';
import { RecordedObjects } from '../../reconcile/recorded-objects.js';
import { CreateRefused, StepFailure } from '../../reconcile/step-errors.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { mapVerdict } from '../../reconcile/verdict.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { BundleSettings } from '../bundles/bundle-settings.js';
import type { Bundle } from './build-meta.js';
import { LABEL_BUILD_ATTEMPT } from './build-meta.js';
import type { BuildNames } from './build-names.js';
import type { BuildRecord, Role } from './build-record.js';
import { objectOf, withObject } from './build-record.js';
import { isControlledBy } from '../../kube/ownership.js';

const describe = (record: ObjectRecord): string =>
  `${record.kind} ${record.namespace}/${record.name} (${record.role})`;

/**
 * Everything one pass of one build works with, and the status draft (`build`) it fills: the
 * objects it records by role and UID before anything uses them (`objects`, the step engine's
 * recorded objects over status.build.objects), and the steps it runs.
 */
export class BuildPass implements RecordOwner {
  readonly ports: ControllerPorts;
  readonly settings: BundleSettings;
  readonly context: ReconcileContext;
  readonly objects: RecordedObjects<Role>;
  private readonly source: ObjectSource;

  constructor(
    readonly bundle: Bundle,
    public build: BuildRecord,
    readonly names: BuildNames,
    env: { ports: ControllerPorts; settings: BundleSettings; context: ReconcileContext },
  ) {
    this.ports = env.ports;
    this.settings = env.settings;
    this.context = env.context;
    this.source = portsSource(env.ports);
    this.objects = new RecordedObjects(this.store(), this);
  }

  get namespace(): string {
    return this.settings.operatorNamespace;
  }

  get attempt(): string {
    return this.build.attempt ?? '';
  }

  /** The live object of a name in the operator namespace: the cache, else a live read. */
  current<T extends KubeObject>(
    type: NamespacedType,
    name: string,
  ): Promise<Stored<T> | undefined> {
    return current<T>(this.source, type, name, this.namespace);
  }

  /** Whether an object is this attempt's: controlled by the bundle and labelled with the attempt. */
  ours(object: KubeObject | undefined): boolean {
    return (
      isControlledBy(object, this.bundle) &&
      object?.metadata?.labels?.[LABEL_BUILD_ATTEMPT] === this.attempt
    );
  }

  /**
   * The build's object of a role, made when the attempt has none and recorded before anything
   * uses it (`record`); then only verified by UID. It hands nothing on.
   */
  async ensure<T extends KubeObject>(
    role: Role,
    type: NamespacedType,
    name: string,
    desired: () => T | Promise<T>,
  ): Promise<Verdict<Nothing, never>> {
    return mapVerdict(await this.objects.ensureRecorded<T>(role, type, name, desired), () => ({}));
  }

  /** Creates an object of the build; one the apiserver refuses (403) is a CreateRefused. */
  async create<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>> {
    try {
      const made = await this.ports.client.create<T>(type, object);
      this.context.logger.info({ name: made.metadata.name }, `Created ${type.kind}`);
      return made;
    } catch (error) {
      if (!isForbidden(error)) throw error;
      throw new CreateRefused(
        `creating ${type.kind} ${this.namespace}/${object.metadata?.name} was refused: ${(error as Error).message}`,
      );
    }
  }

  lost(record: ObjectRecord): StepFailure {
    return new StepFailure(
      'BuildObjectLost',
      `${describe(record)} was deleted during the build: create a new CRCBundle to build again`,
    );
  }

  replaced(record: ObjectRecord, uid: string): StepFailure {
    return new StepFailure(
      'BuildObjectReplaced',
      `${describe(record)} was replaced during the build (UID ${uid}, the build made ${record.uid})`,
    );
  }

  notOurs(type: NamespacedType, found: Stored<KubeObject>): StepFailure {
    return new StepFailure(
      'BuildObjectConflict',
      `${type.kind} ${this.namespace}/${found.metadata.name} exists and is not this build's: delete it or rename the CRCBundle`,
    );
  }

  /** status.build.objects of the draft, as the engine's record store (a record has a UID). */
  private store(): RecordStore<Role> {
    return {
      read: (role) => {
        const found = objectOf(this.build, role);
        if (!found?.uid) return undefined;
        const { kind, name, uid } = found;
        return { role, kind, name, uid, namespace: found.namespace ?? this.namespace };
      },
      write: (record) => {
        this.build = withObject(this.build, record);
      },
    };
  }
}
