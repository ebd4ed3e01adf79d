// Generated from crds/ciaccesspolicies.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * Whose ID tokens are accepted and what they are exchanged for.
 */
export interface CIAccessPolicySpec {
  /**
   * The issuer URL, exactly as the tokens' iss claim names it, for example https://token.actions.githubusercontent.com. Its discovery document (<issuer>/.well-known/openid-configuration) names the signing keys.
   */
  issuer: string;
  /**
   * The audience the tokens must name in their aud claim (the Action's oidc-audience input), for example the exchange's URL.
   */
  audience: string;
  /**
   * The longest lifetime of an issued token, a duration from 10m (the TokenRequest API's shortest) to 24h.
   */
  maxTokenLifetime?: string;
  /**
   * Tried in order; the first whose expression is true for the token's claims (and whose namespace and ServiceAccount match the request's, when it names them) decides what is issued. A token no rule matches is refused.
   *
   * @minItems 1
   * @maxItems 64
   */
  rules: [
    {
      /**
       * The rule's name, unique in the policy; named in Events and answers.
       */
      name: string;
      /**
       * A CEL expression over `claims` (the token's verified claims, a map), true for the tokens the rule admits, for example claims.repository == 'org/app' && claims.ref == 'refs/heads/main'.
       */
      expression: string;
      /**
       * The namespace of the ServiceAccount a matching token gets a token of.
       */
      namespace: string;
      /**
       * The ServiceAccount a matching token gets a token of; the operator needs a grant to create its tokens (docs/permissions.md#ci-token-exchange).
       */
      serviceAccount: string;
    },
    ...{
      /**
       * The rule's name, unique in the policy; named in Events and answers.
       */
      name: string;
      /**
       * A CEL expression over `claims` (the token's verified claims, a map), true for the tokens the rule admits, for example claims.repository == 'org/app' && claims.ref == 'refs/heads/main'.
       */
      expression: string;
      /**
       * The namespace of the ServiceAccount a matching token gets a token of.
       */
      namespace: string;
      /**
       * The ServiceAccount a matching token gets a token of; the operator needs a grant to create its tokens (docs/permissions.md#ci-token-exchange).
       */
      serviceAccount: string;
    }[],
  ];
}

/**
 * Whether the policy can be used, written by the operator.
 */
export interface CIAccessPolicyStatus {
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Conditions: Ready (True Ready; False InvalidRule, naming the rule whose expression does not compile, or GrantMissing).
   *
   * Items: One condition (metav1.Condition).
   */
  conditions?: {
    /**
     * Condition type in CamelCase, for example Resolved. Unique within the list.
     */
    type: string;
    /**
     * Status of the condition, one of True, False, Unknown.
     */
    status: 'True' | 'False' | 'Unknown';
    /**
     * metadata.generation of the object that the condition was set from.
     */
    observedGeneration?: number;
    /**
     * Last time the condition's status changed (not its reason or message).
     */
    lastTransitionTime: string;
    /**
     * Machine-readable CamelCase reason for the last status or reason change.
     */
    reason: string;
    /**
     * Human-readable details; may be empty.
     */
    message: string;
  }[];
}

/** CIAccessPolicy lets the ID tokens of one OIDC issuer (a CI such as GitHub Actions or GitLab) be exchanged at the operator's token exchange for a short-lived token of a ServiceAccount: each rule is a CEL expression over the token's claims and names the namespace and ServiceAccount a matching token gets. Cluster-scoped: policies are written by the cluster administrator. */
export interface CIAccessPolicy {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'CIAccessPolicy';
  metadata?: ObjectMeta;
  spec: CIAccessPolicySpec;
  status?: CIAccessPolicyStatus;
}

/** How to address CIAccessPolicy objects on the API. */
export const CI_ACCESS_POLICY_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CIAccessPolicy',
  plural: 'ciaccesspolicies',
  namespaced: false,
} as const;
