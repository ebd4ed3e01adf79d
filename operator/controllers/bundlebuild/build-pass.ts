import { isForbidden } from '../../kube/api-error.js';
import type { KubeObject, Stored } from '../../kube/objects.js';
import type { NamespacedType } from '../../kube/resource-type.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { controlledBy } from '../bundles/bundle-owner.js';
import type { BundleSettings } from '../bundles/bundle-settings.js';
import type { Bundle } from './build-meta.js';
import { LABEL_BUILD_ATTEMPT } from './build-meta.js';
import type { BuildNames } from './build-names.js';
import type { BuildRecord, Role } from './build-record.js';
import { objectOf, withObject } from './build-record.js';
import type { StageVerdict } from './stage-verdict.js';
import { BuildFailure, CreateRefused, holds, RECORDED } from './stage-verdict.js';

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

/**
 * Everything one pass of one build works with, and the status draft (`build`) it fills: the
 * objects it records by role and UID before anything uses them, and the steps it runs.
 */
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
   * anything uses it (`record`); then only checked (lostOrReplaced), and `holds` with it.
   */
  async ensure<T extends KubeObject>(
    role: Role,
    type: NamespacedType,
    name: string,
    desired: () => T | Promise<T>,
  ): Promise<StageVerdict<Stored<T>>> {
    const recorded = objectOf(this.build, role);
    const found = await this.current<T>(type, name);
    if (recorded?.uid) {
      const failure = lostOrReplaced(
        { role, kind: type.kind, namespace: this.namespace, name, uid: recorded.uid },
        found,
      );
      if (failure) throw failure;
      return holds(found!);
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
}
