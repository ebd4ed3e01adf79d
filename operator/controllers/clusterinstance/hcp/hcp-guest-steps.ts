import { ROUTES } from '../../../api/platform-resources.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { holds, waiting } from '../../../reconcile/verdict.js';
import { markReady } from '../core/mark-ready.js';
import type { PlatformObject } from '../core/platform-object.js';
import { Reason } from '../core/reasons.js';
import { buildApiRoute } from './hcp-builders.js';
import { apiRouteName } from './hcp-naming.js';
import { verifyOwnership } from './hcp-ownership.js';
import type { HcpPass, HcpStep } from './hcp-pass.js';
import { adminKubeconfig, isAdmitted, observedVersion } from './hcp-readiness.js';
import { publishedAccess } from './kubeconfig-rewrite.js';

/*
 * The last steps of an hcp pass (docs/reference/instances.md#hcp-provisioning,
 * docs/reference/instances.md#hcp-readiness): HyperShift's admin kubeconfig, the API Route, the
 * access the operator publishes, the guest API answering on the external endpoint, and Ready.
 */

/** HyperShift's admin kubeconfig, once its Secret holds one. */
export function adminKubeconfigStep(
  pass: HcpPass,
): HcpStep<'placement' | 'hostedCluster', 'admin'> {
  return {
    name: 'admin kubeconfig',
    run: async ({ placement, hostedCluster }) => {
      const admin = await adminKubeconfig(pass.objects, placement, hostedCluster);
      return typeof admin === 'string' ? holds({ admin }) : waiting(admin);
    },
  };
}

/** The API Route in the control plane namespace, for the host, and admitted. */
export function apiRouteStep(pass: HcpPass): HcpStep<'placement' | 'hostname' | 'apiEndpoint'> {
  const { api, objects } = pass;
  const instance = objects.instance;
  const name = apiRouteName(instance.metadata.name);
  return {
    name: 'API Route',
    conflict: Reason.APIEndpointConflict,
    run: async ({ placement, hostname, apiEndpoint }) => {
      const where = `${placement.controlPlaneNamespace}/${name}`;
      const route = api.cached<PlatformObject>(ROUTES, where);
      if (!route) {
        await api.createIfMissing(ROUTES, buildApiRoute(instance, placement, hostname));
        pass.context.logger.info({ route: name, host: hostname }, 'Created Route');
      } else {
        verifyOwnership(route, instance, 'Route');
        if (route.spec?.host !== hostname)
          throw new OwnershipConflictError(
            `Route ${where} has host "${String(route.spec?.host)}", expected "${hostname}"`,
          );
        if (isAdmitted(route)) return holds();
      }
      return waiting({
        reason: Reason.APIEndpointRouteNotAdmitted,
        message: `waiting for the API Route for endpoint "${apiEndpoint}" to be admitted`,
      });
    },
  };
}

/** What the operator publishes: the admin kubeconfig's credential, at the external endpoint. */
export function publishedAccessStep(): HcpStep<
  'placement' | 'hostedCluster' | 'admin' | 'apiEndpoint' | 'caPem',
  'access'
> {
  return {
    name: 'published access',
    run: ({ placement, hostedCluster, admin, apiEndpoint, caPem }) => {
      const access = publishedAccess(placement.hostedClusterNamespace, hostedCluster, admin, {
        endpoint: apiEndpoint,
        caPem,
      });
      return 'reason' in access ? waiting(access) : holds({ access });
    },
  };
}

/**
 * The guest API answers the published access on the external endpoint. The check runs off the
 * worker (guest-api-checks.ts); until it ends, a Ready instance stays Ready and another keeps
 * waiting with the last check's answer.
 */
export function guestApiStep(pass: HcpPass): HcpStep<'access' | 'apiEndpoint'> {
  return {
    name: 'guest API',
    run: ({ access, apiEndpoint }) => {
      const verdict = pass.guestApi.verdict(pass.objects.instance, access);
      if ('answered' in verdict && verdict.answered) return holds();
      if ('pending' in verdict && pass.draft.wasReady) return holds();
      const why =
        'message' in verdict
          ? verdict.message
          : (verdict.lastFailure ?? 'the readiness check is under way');
      return waiting({
        reason: Reason.APIEndpointUnavailable,
        message: `waiting for external HCP API endpoint ${apiEndpoint}: ${why}`,
        requeueAfterMs: pass.timings.endpointRecheckMs,
      });
    },
  };
}

/** The canonical kubeconfig Secret, and phase Ready with the version HyperShift reports. */
export function publishStep(pass: HcpPass): HcpStep<'access' | 'apiEndpoint' | 'hostedCluster'> {
  return {
    name: 'published kubeconfig',
    run: async ({ access, apiEndpoint, hostedCluster }) => {
      const ocpVersion = observedVersion(hostedCluster);
      await markReady(pass.api, pass.draft, { access, ocpVersion, apiEndpoint }, pass.context);
      return holds();
    },
  };
}
