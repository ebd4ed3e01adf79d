import type { KubeClient } from '../../kube/kube-client.js';
import { holdsContent } from '../../kube/objects.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { AdmissionPolicy, PolicyPair } from './admission-policies.js';
import {
  ADMISSION_POLICIES,
  ADMISSION_POLICY_BINDINGS,
  admissionPolicies,
} from './admission-policies.js';

/**
 * Keeps the operator's admission policies (admission-policies.ts) as they must be, on every
 * install, OLM's included (OLM cannot install them from a bundle): each is created at start,
 * put back when it is changed or deleted, and its binding with it. They are the door; the
 * controllers check what they can behind it (docs/permissions.md#bounds).
 */
export class PolicyKeeper {
  private readonly pairs = new Map(admissionPolicies().map((p) => [p.name, p]));

  constructor(private readonly ports: ControllerPorts) {}

  registration(): ControllerRegistration {
    const ours = (name: string | undefined): string[] =>
      name && this.pairs.has(name) ? [name] : [];
    return {
      name: 'admissionpolicy',
      forType: ADMISSION_POLICIES,
      watches: [
        { type: ADMISSION_POLICY_BINDINGS, map: (binding) => ours(binding.metadata?.name) },
      ],
      startKeys: [...this.pairs.keys()],
      reconcile: (key) => this.reconcile(key),
    };
  }

  async reconcile(name: string): Promise<ReconcileResult> {
    const pair = this.pairs.get(name);
    if (!pair) return {};
    await ensurePolicyPair(this.ports.client, pair);
    return {};
  }
}

/** Creates the policy and its binding, or puts back what differs from them (defaults aside). */
export async function ensurePolicyPair(client: KubeClient, pair: PolicyPair): Promise<void> {
  for (const [type, desired] of [
    [ADMISSION_POLICIES, pair.policy],
    [ADMISSION_POLICY_BINDINGS, pair.binding],
  ] as const)
    await client.ensure<AdmissionPolicy>(type, desired, (existing) =>
      holdsContent(existing.spec, desired.spec) &&
      holdsContent(existing.metadata.labels ?? {}, desired.metadata?.labels ?? {})
        ? undefined
        : {
            ...existing,
            metadata: { ...existing.metadata, labels: desired.metadata?.labels },
            spec: desired.spec,
          },
    );
}

/** Every policy and binding, as the keeper would make them (a test's or a script's set-up). */
export async function ensureAdmissionPolicies(client: KubeClient): Promise<void> {
  for (const pair of admissionPolicies()) await ensurePolicyPair(client, pair);
}
