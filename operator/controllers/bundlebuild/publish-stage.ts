import { CONFIG_MAPS } from '../../../client/api/core-resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import type { ConfigMap, Secret } from '../../kube/workloads.js';
import { METADATA_KEYS, SSH_KEY_DATA_KEY } from '../../../contracts/bundle-prep.js';
import { buildLabels } from './build-meta.js';
import { bundleNames } from '../bundles/bundle-names.js';
import type { BundleStatus } from '../bundles/bundle-status.js';
import { SSH_KEY_FILES } from './build-keys.js';
import type { BuildPass } from './build-pass.js';
import type { BuildRecord } from './build-record.js';
import { outputOf } from './build-record.js';
import { stepSpec } from './guest-steps.js';
import type { BuildStage } from './stage-row.js';
import { runStep } from './step-runs.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds } from '../../reconcile/verdict.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { controllerReference, isControlledBy } from '../../kube/ownership.js';
import { BUNDLES } from '../../../client/api/resources.js';

/**
 * Publish: a Job reads the golden disk (its sha256 and virtual size), then the bundle's SSH key Secret
 * and metadata ConfigMap are published in the shape the download source uses, so that instances
 * clone a built bundle exactly as a downloaded one.
 */
export async function publish(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  const stepped = await runStep(pass, stage, stepSpec(pass, { step: 'publish' }));
  if (!('holds' in stepped)) return stepped;
  const diskSha256 = outputOf(pass.build, 'publish', 'diskSHA256');
  if (!/^[0-9a-f]{64}$/.test(diskSha256))
    throw new StepFailure('PublishFailed', 'the publish step reported no disk sha256');
  const names = bundleNames(pass.bundle.metadata.name);
  const meta = (name: string) => ({
    name,
    namespace: pass.namespace,
    labels: buildLabels(pass.bundle, pass.attempt),
    ownerReferences: [controllerReference(BUNDLES, pass.bundle)],
  });
  const key = await pass.current<Secret>(SECRETS, pass.names.sshKey);
  const privateKey = key?.data?.[SSH_KEY_FILES.privateKey];
  if (!privateKey) throw new StepFailure('BuildObjectLost', `the build's SSH key Secret is gone`);
  for (const [type, object] of [
    [
      SECRETS,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: meta(names.sshKeySecret),
        type: 'Opaque',
        data: { [SSH_KEY_DATA_KEY]: privateKey },
      } satisfies Secret,
    ],
    [
      CONFIG_MAPS,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta(names.metadataConfigMap),
        data: {
          [METADATA_KEYS.ocpVersion]: outputOf(pass.build, 'resolve', 'ocpVersion'),
          [METADATA_KEYS.sha256]: diskSha256,
          [METADATA_KEYS.diskSha256]: diskSha256,
          [METADATA_KEYS.diskVirtualSizeBytes]: outputOf(
            pass.build,
            'publish',
            'diskVirtualSizeBytes',
          ),
        },
      } satisfies ConfigMap,
    ],
  ] as const) {
    const existing = await pass.current(type, object.metadata.name);
    if (existing && !isControlledBy(existing, pass.bundle))
      throw new StepFailure(
        'BuildObjectConflict',
        `${type.kind} ${pass.namespace}/${object.metadata.name} is not this bundle's`,
      );
    if (!existing) await pass.ports.client.create(type, object);
  }
  return holds();
}

/** The bundle's published fields, once Publish is done: what instances clone. */
export function publishedStatus(
  build: BuildRecord,
  namespace: string,
  bundleName: string,
): Partial<BundleStatus> {
  const names = bundleNames(bundleName);
  const size = Number(outputOf(build, 'publish', 'diskVirtualSizeBytes'));
  return {
    qcow2PVCRef: { name: names.golden },
    qcow2PVCNamespace: namespace,
    sshKeySecretRef: { name: names.sshKeySecret },
    ocpVersion: outputOf(build, 'resolve', 'ocpVersion'),
    diskSHA256: outputOf(build, 'publish', 'diskSHA256'),
    ...(Number.isSafeInteger(size) && size > 0 ? { diskVirtualSizeBytes: size } : {}),
  };
}
