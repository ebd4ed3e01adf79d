/** A Kubernetes LabelSelector (metav1.LabelSelector). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * Whether a selector selects these labels, as the apiserver decides it: every matchLabels pair
 * and every expression must hold; an empty selector selects everything. An unknown operator
 * selects nothing (the schema allows none).
 */
export function selects(selector: LabelSelector, labels: Record<string, string> = {}): boolean {
  const has = (key: string): boolean => Object.hasOwn(labels, key);
  const pairs = Object.entries(selector.matchLabels ?? {});
  return (
    pairs.every(([key, value]) => has(key) && labels[key] === value) &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      switch (operator) {
        case 'In':
          return has(key) && values.includes(labels[key]!);
        case 'NotIn':
          return !has(key) || !values.includes(labels[key]!);
        case 'Exists':
          return has(key);
        case 'DoesNotExist':
          return !has(key);
        default:
          return false;
      }
    })
  );
}

/** The selector as kubectl writes one: `team=blue,env in (ci,qa),!legacy`; `(everything)` when empty. */
export function describeSelector(selector: LabelSelector): string {
  const parts = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`),
    ...(selector.matchExpressions ?? []).map(({ key, operator, values = [] }) => {
      if (operator === 'Exists') return key;
      if (operator === 'DoesNotExist') return `!${key}`;
      return `${key} ${operator === 'In' ? 'in' : 'notin'} (${values.join(',')})`;
    }),
  ];
  return parts.length ? parts.join(',') : '(everything)';
}
