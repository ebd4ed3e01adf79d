/**
 * CEL rules added since the last release that are known to accept every stored object, each with
 * the reason (docs/reference/api-compatibility.md#new-cel-rules). An entry matches a rule by CRD,
 * version, field path and the rule's exact text; once a release records the CRDs, the rule is part
 * of the baseline and its entry goes.
 */
export interface AllowedRule {
  crd: string;
  version: string;
  path: string;
  rule: string;
  reason: string;
}

export const ALLOWED_RULES: readonly AllowedRule[] = [];
