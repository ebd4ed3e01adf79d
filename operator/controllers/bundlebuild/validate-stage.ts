import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import { GUESTCLUSTER_API_VERSION } from '../../../contracts/api.js';
import { buildMeta } from './build-meta.js';
import type { BuildPass } from './build-pass.js';
import { outputOf, ROLE } from './build-record.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, mapVerdict } from '../../reconcile/verdict.js';
import { runSteps, steps } from '../../reconcile/step-list.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';

const DEFAULT_ROOT_VOLUME = '35Gi';

/**
 * The validation instance: a crc ClusterInstance in the operator namespace that boots a clone of
 * the golden disk through the normal bootstrap path (boot key, crc-agent), never the golden PVC
 * itself. Its boot key accepts the bundle before it is Ready because the bundle names it.
 */
function validationInstance(pass: BuildPass): ClusterInstance {
  const { bundle } = pass;
  const build = bundle.spec.build!;
  const vm = build.vm ?? {};
  return {
    apiVersion: GUESTCLUSTER_API_VERSION,
    kind: INSTANCES.kind,
    metadata: buildMeta(bundle, pass.attempt, pass.namespace, pass.names.validation),
    spec: {
      type: 'crc',
      template: {
        crcBundleRef: { name: bundle.metadata.name },
        ocpVersion: outputOf(pass.build, 'resolve', 'ocpVersion') || 'unknown',
        memory: vm.memory ?? '14336Mi',
        cores: vm.cores ?? 6,
        rootVolumeSize: bundle.spec.goldenVolumeSize || vm.diskSize || DEFAULT_ROOT_VOLUME,
        pullSecretRef: { name: build.pullSecretRef.name },
        ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
        ...(build.nodeSelector ? { vmNodeSelector: { ...build.nodeSelector } } : {}),
      },
    },
  };
}

/** Validate: Ready only once the validation instance is; its failure fails the build. */
export function validate(pass: BuildPass): Promise<Verdict<Nothing>> {
  const list = steps()
    .then({
      name: 'validation instance',
      run: async () =>
        mapVerdict(
          await pass.objects.ensureRecorded<ClusterInstance>(
            ROLE.validation,
            INSTANCES,
            pass.names.validation,
            () => validationInstance(pass),
          ),
          (validation) => ({ validation }),
        ),
    })
    .then({ name: 'validated', run: ({ validation }) => validationOutcome(pass, validation) });
  return runSteps(list, {});
}

/** The validation instance's word: Ready, Failed, or not yet (its reason only). */
function validationOutcome(pass: BuildPass, instance: ClusterInstance): Verdict<Nothing> {
  const phase = instance.status?.phase;
  const ready = instance.status?.conditions?.find((c) => c.type === 'Ready');
  if (phase === 'Ready') return holds();
  if (phase === 'Failed')
    throw new StepFailure(
      'ValidationFailed',
      `the validation instance ${pass.namespace}/${pass.names.validation} failed (${ready?.reason ?? 'Failed'}): ${ready?.message ?? ''}`,
    );
  // Its reason only: the instance's message may quote this bundle's own.
  return inProgress(
    `waiting for the validation instance ${pass.namespace}/${pass.names.validation} to be Ready${ready?.reason ? ` (${ready.reason})` : ''}`,
  );
}
