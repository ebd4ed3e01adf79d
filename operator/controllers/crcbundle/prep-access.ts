import {
  CONFIG_MAPS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../../client/api/resources.js';
import type { Desired, DesiredMeta, KubeObject, StoredCluster } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { NamespacedType } from '../../../client/kube/resource-type.js';
import type { ConfigMap, Secret } from '../../kube/workloads.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { BundleNames } from '../bundles/bundle-names.js';
import { bundleNames } from '../bundles/bundle-names.js';
import { bundleLabels } from '../bundles/bundle-owner.js';
import { controllerReference, isControlledBy } from '../../kube/ownership.js';

/*
 * What one bundle's prep Job may reach (docs/reference/generated-objects.md#bundle-prep-job): an
 * account of its own, bound to a Role with get and update on exactly the bundle's SSH key Secret
 * and metadata ConfigMap. RBAC cannot limit create by name, so the operator makes both outputs
 * (empty) before the Job, as it does the crc-agent's handoff (ADR 0010). Everything is owned by
 * the bundle and goes with it.
 */

type Bundle = StoredCluster<CRCBundle>;

interface RbacObject extends KubeObject {
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames: string[] }[];
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace: string }[];
}

function meta(bundle: Bundle, namespace: string, name: string): DesiredMeta {
  return {
    name,
    namespace,
    labels: bundleLabels(bundle),
    ownerReferences: [controllerReference(BUNDLES, bundle)],
  };
}

/** The prep Job's own account, `<bundle>-prep`. */
export function buildPrepAccount(bundle: Bundle, namespace: string): Desired<KubeObject> {
  const names = bundleNames(bundle.metadata.name);
  return {
    apiVersion: SERVICE_ACCOUNTS.apiVersion,
    kind: SERVICE_ACCOUNTS.kind,
    metadata: meta(bundle, namespace, names.prepAccount),
  };
}

/** Get and update on exactly the two objects the Job publishes; nothing else, no create. */
export function buildPrepRole(bundle: Bundle, namespace: string): Desired<RbacObject> {
  const names = bundleNames(bundle.metadata.name);
  return {
    apiVersion: ROLES.apiVersion,
    kind: ROLES.kind,
    metadata: meta(bundle, namespace, names.prepAccount),
    rules: [
      {
        apiGroups: [''],
        resources: [SECRETS.plural],
        verbs: ['get', 'update'],
        resourceNames: [names.sshKeySecret],
      },
      {
        apiGroups: [''],
        resources: [CONFIG_MAPS.plural],
        verbs: ['get', 'update'],
        resourceNames: [names.metadataConfigMap],
      },
    ],
  };
}

export function buildPrepBinding(bundle: Bundle, namespace: string): Desired<RbacObject> {
  const names = bundleNames(bundle.metadata.name);
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: meta(bundle, namespace, names.prepAccount),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: names.prepAccount },
    subjects: [{ kind: 'ServiceAccount', name: names.prepAccount, namespace }],
  };
}

/** The SSH key Secret and the metadata ConfigMap as the operator makes them: empty. */
export function buildPrepOutputs(
  bundle: Bundle,
  namespace: string,
): [Desired<Secret>, Desired<ConfigMap>] {
  const names: BundleNames = bundleNames(bundle.metadata.name);
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: meta(bundle, namespace, names.sshKeySecret),
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(bundle, namespace, names.metadataConfigMap),
    },
  ];
}

/**
 * An object of the bundle: created when missing; one that is not the bundle's is refused (the
 * Job would get another's object); for a Role and a RoleBinding, what it grants is kept as built.
 */
async function ensureOwned(
  ports: ControllerPorts,
  bundle: Bundle,
  type: NamespacedType,
  desired: Desired<RbacObject>,
  kept?: 'rules' | 'subjects',
): Promise<void> {
  const { name, namespace } = desired.metadata;
  const existing = await ports.client.getOrUndefined<RbacObject>(type, name, namespace);
  if (!existing) {
    await ports.client.createIfAbsent(type, desired);
    return;
  }
  // A predecessor's object (a deleted bundle of this name) goes with it: wait for that.
  if (!isControlledBy(existing, bundle))
    throw new Error(
      `${type.kind} ${namespace}/${name} exists and is not CRCBundle ${bundle.metadata.name}'s: the prep Job waits until it is gone`,
    );
  if (kept && !sameContent(existing[kept], desired[kept]))
    await ports.client.update(type, { ...existing, [kept]: desired[kept] });
}

/**
 * Whether an existing output may become the bundle's: it has no controller, or its controller is
 * a deleted CRCBundle of this name (names of cluster-scoped objects are unique). One controlled by
 * anything else is left alone, and the Job refuses it (BundleOwnerConflict).
 */
function adoptable(object: KubeObject, bundle: Bundle): boolean {
  const controller = object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  return (
    !controller || (controller.kind === BUNDLES.kind && controller.name === bundle.metadata.name)
  );
}

/**
 * An output of the Job: made empty when missing; one that is not the bundle's yet is adopted (its
 * controller reference set here): the Job's account may update it but not set an owner
 * reference (OwnerReferencesPermissionEnforcement wants delete for that), and needs none.
 */
async function ensureOutput(
  ports: ControllerPorts,
  bundle: Bundle,
  type: NamespacedType,
  desired: Desired<KubeObject>,
): Promise<void> {
  const { name, namespace } = desired.metadata;
  const existing = await ports.client.getOrUndefined<KubeObject>(type, name, namespace);
  if (!existing) {
    await ports.client.createIfAbsent(type, desired);
    return;
  }
  if (isControlledBy(existing, bundle) || !adoptable(existing, bundle)) return;
  const others = (existing.metadata.ownerReferences ?? []).filter((ref) => ref.controller !== true);
  await ports.client.update(type, {
    ...existing,
    metadata: {
      ...existing.metadata,
      labels: { ...existing.metadata.labels, ...desired.metadata.labels },
      ownerReferences: [...others, controllerReference(BUNDLES, bundle)],
    },
  });
}

/** The Job's outputs (empty) and the account that may fill exactly them, before the Job. */
export async function ensurePrepAccess(
  ports: ControllerPorts,
  bundle: Bundle,
  namespace: string,
): Promise<void> {
  const [secret, configMap] = buildPrepOutputs(bundle, namespace);
  await ensureOutput(ports, bundle, SECRETS, secret);
  await ensureOutput(ports, bundle, CONFIG_MAPS, configMap);
  await ensureOwned(ports, bundle, SERVICE_ACCOUNTS, buildPrepAccount(bundle, namespace));
  await ensureOwned(ports, bundle, ROLES, buildPrepRole(bundle, namespace), 'rules');
  await ensureOwned(ports, bundle, ROLE_BINDINGS, buildPrepBinding(bundle, namespace), 'subjects');
}
