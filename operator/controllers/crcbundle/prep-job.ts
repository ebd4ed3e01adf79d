import { JOBS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { Desired, StoredCluster } from '../../kube/objects.js';
import type { Job } from '../../kube/workloads.js';
import { RESTRICTED_CONTAINER_SECURITY, RESTRICTED_POD_SECURITY } from '../../kube/workloads.js';
import { bundleLabels } from '../bundles/bundle-owner.js';
import { bundleNames } from '../bundles/bundle-names.js';
import { bundleUrls } from './bundle-urls.js';
import { PREP_DIRS, PREP_ENV } from '../../../contracts/bundle-prep.js';
import { controllerReference } from '../../kube/ownership.js';
import { BUNDLES } from '../../../client/api/resources.js';

export const PREP_CONTAINER = 'bundle-prep';
export const PREP_BACKOFF_LIMIT = 2;
export const PREP_DEADLINE_SECONDS = 2 * 60 * 60;
export const GOLDEN_MOUNT = PREP_DIRS.golden;
export const SCRATCH_MOUNT = PREP_DIRS.scratch;
export const TERMINATION_LOG = '/dev/termination-log';

export interface PrepJobSettings {
  /** The operator namespace: the Job, the PVCs, the Secret and the ConfigMap live here. */
  namespace: string;
  image: string;
  mirrorUrl: string;
}

/**
 * The bundle-prep Job (docs/reference/generated-objects.md#bundle-prep-job, ADR 0005): the agent
 * image in its `bundle-prep` mode with the reference's environment, the golden and scratch PVCs
 * mounted, and the failed step reported in the termination message. It runs as the bundle's own
 * account (prep-access.ts), which reaches only the two objects it publishes.
 */
export function buildPrepJob(
  bundle: StoredCluster<CRCBundle>,
  settings: PrepJobSettings,
): Desired<Job> {
  const name = bundle.metadata.name;
  const names = bundleNames(name);
  const { bundleUrl, sha256Url } = bundleUrls(bundle, settings.mirrorUrl);
  const labels = bundleLabels(bundle);
  const env: Record<string, string> = {
    [PREP_ENV.bundleUrl]: bundleUrl,
    [PREP_ENV.sha256Url]: sha256Url,
    [PREP_ENV.namespace]: settings.namespace,
    [PREP_ENV.bundleName]: name,
    [PREP_ENV.bundleUid]: bundle.metadata.uid,
    [PREP_ENV.sshSecretName]: names.sshKeySecret,
    [PREP_ENV.metadataConfigMapName]: names.metadataConfigMap,
    [PREP_ENV.goldenDir]: GOLDEN_MOUNT,
    [PREP_ENV.scratchDir]: SCRATCH_MOUNT,
    [PREP_ENV.terminationMessagePath]: TERMINATION_LOG,
  };
  return {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: {
      name: names.prepJob,
      namespace: settings.namespace,
      labels,
      ownerReferences: [controllerReference(BUNDLES, bundle)],
    },
    spec: {
      backoffLimit: PREP_BACKOFF_LIMIT,
      activeDeadlineSeconds: PREP_DEADLINE_SECONDS,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          securityContext: RESTRICTED_POD_SECURITY,
          serviceAccountName: names.prepAccount,
          containers: [
            {
              name: PREP_CONTAINER,
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              image: settings.image,
              args: ['bundle-prep'],
              env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
              volumeMounts: [
                { name: 'golden', mountPath: GOLDEN_MOUNT },
                { name: 'scratch', mountPath: SCRATCH_MOUNT },
              ],
              terminationMessagePath: TERMINATION_LOG,
              // A crash that writes no message still leaves the tail of its log for the condition.
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes: [
            { name: 'golden', persistentVolumeClaim: { claimName: names.golden } },
            { name: 'scratch', persistentVolumeClaim: { claimName: names.scratch } },
          ],
        },
      },
    },
  };
}
