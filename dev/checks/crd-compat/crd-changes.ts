import type { CrdManifest } from '../../control-plane/platform-crds/crd-manifest.js';
import type { AllowedRule } from './allowed-rules.js';
import type { Change, SchemaChange } from './change.js';
import { schemaChanges } from './schema-changes.js';

type Names = CrdManifest['spec']['names'];

const NAME_KEYS = ['kind', 'listKind', 'plural', 'singular'] as const;
const NAME_LISTS = ['shortNames', 'categories'] as const;

function nameChanges(was: Names, is: Names): string[] {
  const changed = NAME_KEYS.filter((k) => was[k] !== undefined && was[k] !== is[k]).map(
    (k) => `names.${k} ${JSON.stringify(was[k])} became ${JSON.stringify(is[k] ?? null)}`,
  );
  const dropped = NAME_LISTS.flatMap((k) =>
    (was[k] ?? [])
      .filter((n) => !(is[k] ?? []).includes(n))
      .map((n) => `names.${k} lost ${JSON.stringify(n)}`),
  );
  return [...changed, ...dropped];
}

function crdLevelChanges(old: CrdManifest, next: CrdManifest): SchemaChange[] {
  const changes: SchemaChange[] = nameChanges(old.spec.names, next.spec.names).map((message) => ({
    path: '',
    rule: 'names-changed',
    message: `${message}: clients and stored objects name it so`,
  }));
  if (old.spec.scope !== next.spec.scope)
    changes.unshift({
      path: '',
      rule: 'scope-changed',
      message: `scope ${old.spec.scope} became ${next.spec.scope}: stored objects are no longer reachable`,
    });
  return changes;
}

function versionChanges(old: CrdManifest, next: CrdManifest): Change[] {
  const crd = old.metadata.name;
  return old.spec.versions.flatMap((was): Change[] => {
    const is = next.spec.versions.find((v) => v.name === was.name);
    if (!is || (was.served && !is.served))
      return [
        {
          crd,
          version: was.name,
          path: '',
          rule: 'version-removed',
          message: is
            ? 'no longer served'
            : 'the version was removed: objects stored in it cannot be read',
        },
      ];
    return schemaChanges(was.schema.openAPIV3Schema, is.schema.openAPIV3Schema).map((c) => ({
      crd,
      version: was.name,
      ...c,
    }));
  });
}

const isAllowed = (change: Change, allowed: readonly AllowedRule[]): boolean =>
  change.rule === 'validation-added' &&
  allowed.some(
    (a) =>
      a.crd === change.crd &&
      a.version === change.version &&
      a.path === change.path &&
      a.rule === change.celRule,
  );

/**
 * Every change from the released CRDs to the current ones that would refuse or drop a stored
 * object, less the new CEL rules the allow-list vouches for. A CRD that is new has nothing stored.
 */
export function crdChanges(
  released: readonly CrdManifest[],
  current: readonly CrdManifest[],
  allowed: readonly AllowedRule[] = [],
): Change[] {
  return released
    .flatMap((old): Change[] => {
      const next = current.find((c) => c.metadata.name === old.metadata.name);
      if (!next)
        return [
          {
            crd: old.metadata.name,
            version: '',
            path: '',
            rule: 'crd-removed',
            message: 'the CRD was removed: every stored object of its kind goes with it',
          },
        ];
      const own = crdLevelChanges(old, next).map((c) => ({
        crd: old.metadata.name,
        version: '',
        ...c,
      }));
      return [...own, ...versionChanges(old, next)];
    })
    .filter((c) => !isAllowed(c, allowed));
}

/** Allow-list entries that match no new rule any more (the release recorded it, or it went). */
export function unusedAllowances(
  released: readonly CrdManifest[],
  current: readonly CrdManifest[],
  allowed: readonly AllowedRule[],
): AllowedRule[] {
  const added = crdChanges(released, current);
  return allowed.filter((a) => !added.some((c) => isAllowed(c, [a])));
}
