import type { CIAccessPolicy } from '../../../client/api/resources.js';
import { CI_ACCESS_POLICIES } from '../../../client/api/resources.js';
import { resourceType } from '../../../client/kube/resource-type.js';
import type { ConditionUpdate } from '../../api/conditions.js';
import { setCondition } from '../../api/conditions.js';
import { compileRules } from '../../exchange/policy-rules.js';
import type { KubeObject, StoredCluster } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';

export const READY_CONDITION = 'Ready';
export const POLICY_REASONS = {
  ready: 'Ready',
  invalidRule: 'InvalidRule',
  grantMissing: 'GrantMissing',
} as const;
/** Grants are not watched: a policy that lacks one is checked again this often. */
const GRANT_RECHECK_MS = 60_000;

const SELF_SUBJECT_ACCESS_REVIEWS = resourceType(
  'authorization.k8s.io/v1',
  'SelfSubjectAccessReview',
  'selfsubjectaccessreviews',
  false,
);

type Review = KubeObject & { spec: object; status?: { allowed?: boolean } };
type Policy = StoredCluster<CIAccessPolicy>;

/**
 * Tells an admin whether a CIAccessPolicy can issue anything: Ready False with InvalidRule
 * (naming the rule whose CEL does not compile, since the schema cannot compile CEL of ours) or
 * GrantMissing (naming the ServiceAccount whose tokens the operator may not create,
 * docs/permissions.md#ci-token-exchange), else Ready True.
 */
export class PolicyStatusController {
  constructor(private readonly ports: ControllerPorts) {}

  registration(): ControllerRegistration {
    return {
      name: 'ciaccesspolicy',
      forType: CI_ACCESS_POLICIES,
      reconcile: (key) => this.reconcile(key),
    };
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const cache = await this.ports.cache.read<CIAccessPolicy>(CI_ACCESS_POLICIES);
    const policy = cache.get(name);
    if (!policy || policy.metadata.deletionTimestamp) return {};
    const condition = await this.readiness(policy);
    await this.writeStatus(policy, condition);
    return condition.reason === POLICY_REASONS.grantMissing
      ? { requeueAfterMs: GRANT_RECHECK_MS }
      : {};
  }

  private async readiness(policy: Policy): Promise<Omit<ConditionUpdate, 'type'>> {
    const compiled = compileRules(policy);
    if (!compiled.ok)
      return {
        status: 'False',
        reason: POLICY_REASONS.invalidRule,
        message: `spec.rules[${compiled.rule}].expression does not compile: ${compiled.message}`,
      };
    for (const rule of compiled.rules)
      if (!(await this.mayCreateToken(rule.namespace, rule.serviceAccount)))
        return {
          status: 'False',
          reason: POLICY_REASONS.grantMissing,
          message: `Rule ${rule.name}: the operator may not create tokens of ServiceAccount ${rule.namespace}/${rule.serviceAccount}; grant it create on serviceaccounts/token for it (docs/permissions.md#ci-token-exchange)`,
        };
    return {
      status: 'True',
      reason: POLICY_REASONS.ready,
      message: "Every rule compiles and its ServiceAccount's tokens can be issued",
    };
  }

  private async mayCreateToken(namespace: string, serviceAccount: string): Promise<boolean> {
    const review = await this.ports.client.submit<Review>(SELF_SUBJECT_ACCESS_REVIEWS, {
      apiVersion: SELF_SUBJECT_ACCESS_REVIEWS.apiVersion,
      kind: SELF_SUBJECT_ACCESS_REVIEWS.kind,
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace,
          verb: 'create',
          resource: 'serviceaccounts',
          subresource: 'token',
          name: serviceAccount,
        },
      },
    });
    return review.status?.allowed === true;
  }

  private async writeStatus(
    policy: Policy,
    condition: Omit<ConditionUpdate, 'type'>,
  ): Promise<void> {
    const generation = policy.metadata.generation;
    const next = {
      observedGeneration: generation,
      conditions: setCondition(
        policy.status?.conditions,
        { type: READY_CONDITION, ...condition, observedGeneration: generation },
        this.ports.clock.now(),
      ),
    };
    if (sameContent(policy.status ?? {}, next)) return;
    await this.ports.client.updateStatus(CI_ACCESS_POLICIES, { ...policy, status: next });
  }
}
