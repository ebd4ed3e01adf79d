import { SECRETS } from '../../../../client/api/resources.js';
import type { Secret } from '../../../kube/workloads.js';
import { failed, holds, waiting } from '../../../reconcile/verdict.js';
import { decodeBase64 } from '../core/encoding.js';
import { kubeconfigSecretName } from '../core/naming.js';
import { markReady } from '../core/mark-ready.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import { ensureAgentAccount, ensureHandoffGrant } from './crc-agent-rbac.js';
import { ensureIdentitySecret } from './crc-identity-secret.js';
import { crcGuestAccess, handoffRejection } from './crc-kubeconfig.js';
import { ensureGuestNetworkPolicy } from './crc-network-policy.js';
import type { CrcPass, CrcStep } from './crc-pass.js';
import { ensureInstanceSshKey } from './crc-ssh-key.js';
import type { CrcWait } from './crc-wait.js';

/*
 * The steps of a crc pass around the running guest (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness): what the agent needs, the operator's own access,
 * the guest API answering on the external endpoint, and the published kubeconfig.
 */

const backing = Reason.APIEndpointConflict;

const GUEST_API_READY = {
  type: 'GuestAPIReachable',
  status: 'True',
  reason: Reason.GuestAPIReady,
  message: 'guest API readiness check succeeded',
} as const;

/** The agent's ServiceAccount and binding, and its grant to write the VMI's handoff. */
export function agentPermissionsStep(pass: CrcPass): CrcStep<'vmiUid'> {
  return {
    name: 'agent permissions',
    conflict: backing,
    run: async ({ vmiUid }) => {
      await ensureAgentAccount(pass.api, pass.objects);
      await ensureHandoffGrant(pass.api, pass.objects, vmiUid);
      return holds();
    },
  };
}

/** The identity the operator minted for the instance, issued for its API host. */
export function identitySecretStep(pass: CrcPass): CrcStep<'endpoint'> {
  return {
    name: 'identity Secret',
    conflict: backing,
    run: async ({ endpoint }) => {
      await ensureIdentitySecret(pass.objects, endpoint.hostname, new Date(pass.api.now()));
      return holds();
    },
  };
}

/** The instance's own SSH key Secret. */
export function sshKeyStep(pass: CrcPass): CrcStep {
  return ensured('instance SSH key', () => ensureInstanceSshKey(pass.objects));
}

/** The NetworkPolicy around the guest. */
export function networkPolicyStep(pass: CrcPass): CrcStep {
  return ensured('guest NetworkPolicy', () => ensureGuestNetworkPolicy(pass.api, pass.objects));
}

/** A step that holds once `ensure` has made or checked what it names. */
function ensured(name: string, ensure: () => Promise<void>): CrcStep {
  return {
    name,
    conflict: backing,
    run: async () => {
      await ensure();
      return holds();
    },
  };
}

/** The operator's own access to the guest, and a handoff kubeconfig that agrees with it. */
export function guestAccessStep(
  pass: CrcPass,
): CrcStep<'endpoint' | 'done' | 'vmiUid' | 'agent', 'access' | 'ocpVersion'> {
  const { objects, draft } = pass;
  return {
    name: 'guest access',
    conflict: backing,
    run: async ({ endpoint, done, vmiUid, agent }) => {
      const access = await crcGuestAccess(objects, endpoint.hostname, new Date(pass.api.now()));
      if ('unavailable' in access) {
        if (!draft.wasReady)
          return failed(new InstanceFailure(Reason.ReconcileError, access.unavailable));
        return waiting(unavailable(pass, Reason.KubeconfigUnavailable, access.unavailable));
      }
      if (!('handoff' in done)) {
        // Published in an earlier pass (its handoff is gone): the version it published, also
        // when that pass did not get as far as Ready (a readiness check still under way).
        const publishedSecret = objects.cached<Secret>(
          SECRETS,
          kubeconfigSecretName(objects.instance.metadata.name),
        );
        const ocpVersion =
          objects.instance.status?.ocpVersion || decodeBase64(publishedSecret?.data?.ocpVersion);
        return holds({ access, ocpVersion });
      }
      const rejected = handoffRejection(objects, vmiUid, done.handoff.kubeconfig, access);
      if (rejected) return waiting({ reason: Reason.KubeconfigRejected, message: rejected, agent });
      return holds({ access, ocpVersion: done.handoff.ocpVersion });
    },
  };
}

/**
 * The guest API answers the operator's own credentials on the external endpoint. The check runs
 * off the worker (guest-api-checks.ts); until it ends, a Ready instance stays Ready and another
 * keeps waiting as the last check left it.
 */
export function guestApiStep(pass: CrcPass): CrcStep<'access' | 'agent'> {
  return {
    name: 'guest API',
    run: ({ access, agent }) => {
      const verdict = pass.guestApi.verdict(pass.objects.instance, access);
      if ('answered' in verdict && verdict.answered) return holds();
      if ('pending' in verdict && pass.draft.wasReady) return holds();
      const message = 'message' in verdict ? verdict.message : verdict.lastFailure;
      if (pass.draft.wasReady)
        return waiting(
          unavailable(
            pass,
            Reason.GuestAPIUnavailable,
            `guest API readiness check failed: ${message}`,
          ),
        );
      if ('message' in verdict)
        pass.context.logger.info({ err: message }, 'CRC guest API is not externally ready yet');
      return waiting({
        reason: Reason.GuestAPIUnavailable,
        message:
          'CRC agent handoff received; guest API is not externally ready yet (see manager logs)',
        agent,
        requeueAfterMs: pass.timings.recheckMs,
      });
    },
  };
}

/** The canonical kubeconfig Secret, and phase Ready. */
export function publishStep(pass: CrcPass): CrcStep<'endpoint' | 'access' | 'ocpVersion'> {
  const { draft } = pass;
  return {
    name: 'published kubeconfig',
    run: async ({ endpoint, access, ocpVersion }) => {
      draft.removeCondition('CRCAgent');
      draft.condition(GUEST_API_READY);
      const apiEndpoint = `https://${endpoint.hostname}`;
      await markReady(
        pass.api,
        draft,
        {
          access,
          ocpVersion,
          apiEndpoint,
          becameReady: {
            reason: 'HandoffReceived',
            message: `crc-agent handoff received; guest API ${apiEndpoint} answers`,
          },
        },
        pass.context,
      );
      return holds();
    },
  };
}

/**
 * "API unavailable" (docs/reference/instances.md#crc-readiness): back to Provisioning, keeping
 * the handoff and the Job.
 */
function unavailable(pass: CrcPass, reason: string, message: string): CrcWait {
  return { reason, message, requeueAfterMs: pass.timings.recheckMs };
}
