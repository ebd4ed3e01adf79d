import type { ClusterInstance } from '../../../../client/api/resources.js';
import { INSTANCES, NAMESPACES, SECRETS } from '../../../../client/api/resources.js';
import { HOSTED_CLUSTERS } from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import { holds, recorded } from '../../../reconcile/verdict.js';
import { decodeBase64 as decode } from '../core/encoding.js';
import type { Instance } from '../core/instance-api.js';
import { NamingError } from '../core/naming.js';
import { resolvePullSecret } from '../core/pull-secret.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { SecretObject } from './hcp-builders.js';
import { ensureKasServingCert, resolveApiHostname } from './hcp-endpoint.js';
import type { HcpPass, HcpStep } from './hcp-pass.js';
import type { HcpPlacement } from './hcp-placement.js';
import { placementConflict, plannedPlacement, recordedPlacement } from './hcp-placement.js';

/*
 * The first steps of an hcp pass (docs/reference/instances.md#hcp-provisioning,
 * docs/reference/instances.md#hcp-placement-and-ownership): where the HostedCluster goes and the
 * API host, each recorded before anything is created from it, and the inputs the HostedCluster is
 * made with.
 */

/**
 * Where the HostedCluster goes, chosen and recorded before anything exists; a conflict fails the
 * instance.
 */
export function placementStep(pass: HcpPass): HcpStep<never, 'placement'> {
  return {
    name: 'placement',
    run: async () => {
      const instance = pass.objects.instance;
      const placement = recordedPlacement(instance);
      if (placement) return holds({ placement });
      const planned = plan(instance);
      const conflict = await currentPlacementConflict(pass, planned);
      if (conflict) throw new InstanceFailure(Reason.HCPPlacementConflict, conflict);
      pass.draft.status.hyperShift = {
        hostedClusterName: planned.hostedClusterName,
        hostedClusterNamespace: planned.hostedClusterNamespace,
        nodePoolNames: [planned.nodePoolName],
      };
      pass.context.logger.info(
        { hostedCluster: planned.hostedClusterName, controlPlane: planned.controlPlaneNamespace },
        'Recorded HostedCluster placement',
      );
      return recorded({ placement: planned });
    },
  };
}

/** The placement a new instance gets; a namespace too long for one fails the instance. */
function plan(instance: Instance): HcpPlacement {
  try {
    return plannedPlacement(instance);
  } catch (error) {
    if (error instanceof NamingError)
      throw new InstanceFailure(Reason.HCPPlacementConflict, error.message);
    throw error;
  }
}

/** What collides with the placement now (hcp-placement.ts), read from the caches and live. */
export async function currentPlacementConflict(
  pass: Pick<HcpPass, 'api' | 'objects'>,
  placement: HcpPlacement,
): Promise<string | undefined> {
  const { api } = pass;
  const controlPlane = await api.get(NAMESPACES, placement.controlPlaneNamespace);
  return placementConflict(pass.objects.instance, placement, {
    hostedClusters: api.cachedList<KubeObject>(HOSTED_CLUSTERS),
    namespaceExists: () => controlPlane !== undefined,
    instances: api.cachedList<ClusterInstance>(INSTANCES),
  });
}

/** The pull secret the HostedCluster names. */
export function pullSecretStep(pass: HcpPass): HcpStep<never, 'pullSecret'> {
  return {
    name: 'pull secret',
    run: async () => holds({ pullSecret: await resolvePullSecret(pass.objects) }),
  };
}

/** The workers' SSH key Secret, when the template names one. */
export function workerSshKeyStep(pass: HcpPass): HcpStep<never, 'sshKey'> {
  return {
    name: 'worker SSH key',
    run: async () => {
      const { objects } = pass;
      const name = objects.instance.spec.template.hcpWorkerSSHKeyRef?.name;
      if (!name) return holds({ sshKey: undefined });
      const secret = await objects.current<SecretObject>(SECRETS, name);
      if (!decode(secret?.data?.['id_rsa.pub']).trim())
        throw new InstanceFailure(
          Reason.InvalidWorkerSSHKey,
          `worker SSH key Secret ${objects.namespace}/${name} is missing or has no data key "id_rsa.pub"`,
        );
      return holds({ sshKey: name });
    },
  };
}

/** The API host, recorded as status.apiEndpoint before anything that embeds it is created. */
export function apiHostStep(pass: HcpPass): HcpStep<'placement', 'hostname' | 'apiEndpoint'> {
  return {
    name: 'API host',
    conflict: Reason.APIEndpointConflict,
    run: async ({ placement }) => {
      const hostname = await resolveApiHostname(pass.api, pass.objects, placement);
      // The host agrees with a recorded endpoint (resolveApiHostname): it is that endpoint.
      const apiEndpoint = pass.objects.instance.status?.apiEndpoint;
      if (apiEndpoint) return holds({ hostname, apiEndpoint });
      pass.draft.status.apiEndpoint = `https://${hostname}`;
      return recorded({ hostname, apiEndpoint: `https://${hostname}` });
    },
  };
}

/** The KAS serving certificate for the host; its PEM is the published kubeconfig's CA. */
export function servingCertStep(pass: HcpPass): HcpStep<'placement' | 'hostname', 'caPem'> {
  return {
    name: 'serving certificate',
    conflict: Reason.APIEndpointConflict,
    run: async ({ placement, hostname }) =>
      holds({ caPem: await ensureKasServingCert(pass.api, pass.objects, placement, hostname) }),
  };
}
