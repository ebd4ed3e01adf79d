import type { KubeObject } from './kube/objects.js';

/**
 * What one operator serves when several share a cluster (--scope-labels,
 * docs/install.md#two-operators-side-by-side): the pools, leases and instances of its own
 * namespace and of the namespaces whose Namespace carries every one of `labels`, and the
 * cluster-scoped CRCBundles and VersionStreams that carry them (the CRCBundles it creates for
 * pools get them). Without a scope it serves everything.
 */
export interface OperatorScope {
  labels: Readonly<Record<string, string>>;
}

export const SCOPE_LABELS_SETTING = '--scope-labels';

/** A label name, or the name part of a key: 63 characters at most, alphanumeric at both ends. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** A DNS subdomain: the optional prefix of a label key. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = key.slice(slash + 1);
  return (
    NAME.test(name) && (prefix === undefined || (prefix.length <= 253 && SUBDOMAIN.test(prefix)))
  );
}

/**
 * The scope of `--scope-labels key=value[,key=value…]`: equality only, so that the operator can
 * give the objects it creates for its pools the same labels. Undefined when the flag is unset.
 */
export function scopeFromFlag(
  value: string | undefined,
  problems: string[],
): OperatorScope | undefined {
  if (value === undefined) return undefined;
  const labels: Record<string, string> = {};
  const pairs = value.split(',').map((pair) => pair.trim());
  for (const pair of pairs) {
    const [key = '', label, ...rest] = pair.split('=');
    if (
      label === undefined ||
      rest.length > 0 ||
      !isLabelKey(key) ||
      (label && !NAME.test(label)) ||
      key in labels
    ) {
      problems.push(
        `${SCOPE_LABELS_SETTING} must be key=value pairs, comma-separated, each a label key and value, each key once (got "${value}")`,
      );
      return undefined;
    }
    labels[key] = label;
  }
  return { labels };
}

/** Whether an object carries every label of the scope: always without a scope, never when absent. */
export function carriesScope(
  scope: OperatorScope | undefined,
  object: KubeObject | undefined,
): boolean {
  if (!scope) return true;
  const labels = object?.metadata?.labels ?? {};
  return !!object && Object.entries(scope.labels).every(([key, value]) => labels[key] === value);
}
