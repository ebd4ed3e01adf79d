import { CONFIG_MAPS, PVCS, SERVICES } from '../../../client/api/core-resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import { DATA_VOLUMES, DEPLOYMENTS, VIRTUAL_MACHINES } from '../../api/platform-resources.js';
import { profileOf } from '../../api/vm-profile.js';
import type { Secret } from '../../kube/workloads.js';
import { INSTALL_CLOCK_OFFSET_SECONDS } from '../../../contracts/bundle-build.js';
import { buildDnsConfigMap, buildDnsDeployment, buildDnsService } from './build-dns.js';
import { readBuildInputs } from './build-inputs.js';
import { buildSshKeySecret, SSH_KEY_FILES } from './build-keys.js';
import { buildMeta } from './build-meta.js';
import type { BuildPass } from './build-pass.js';
import { outputOf, ROLE } from './build-record.js';
import {
  BUILD_RUN_STRATEGY,
  buildInstallerCloudInit,
  buildInstallerVm,
  buildLiveIsoPvc,
  buildRootDisk,
  buildTargetVm,
  buildWorkPvc,
} from './build-vms.js';
import { runningVmi } from './build-vmis.js';
import { dnsIp, rotates, stepDone, stepSpec } from './guest-steps.js';
import type { BuildStage } from './stage-row.js';
import { runStep } from './step-runs.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds, mapVerdict } from '../../reconcile/verdict.js';
import { runSteps, steps } from '../../reconcile/step-list.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import { inProgress } from './build-conditions.js';

/*
 * The stages up to the install (docs/bundle-build.md#stage-map): the inputs and the build's own
 * objects, the build DNS, the ignition, the live ISO, and the target VM booted from it.
 */

/** The inputs' snapshot Secret: what the Jobs mount, checked against the digests recorded at the start. */
async function inputsSnapshot(pass: BuildPass): Promise<Secret> {
  const { bundle, namespace: ns, names, attempt } = pass;
  const read = await readBuildInputs(pass.ports.client, bundle, ns);
  const changed = read.records.find(
    (r, i) =>
      r.sha256 !== pass.build.inputs?.[i]?.sha256 || r.name !== pass.build.inputs?.[i]?.name,
  );
  if (changed)
    throw new StepFailure(
      'InputChanged',
      `${changed.kind} ${ns}/${changed.name} changed after the build started: a build uses the inputs it recorded; create a new CRCBundle to build with the new content`,
    );
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: buildMeta(bundle, attempt, ns, names.inputs),
    type: 'Opaque',
    data: read.snapshot,
  };
}

/** Resolve: the inputs' snapshot, the build key and the work volume, then the resolve step. */
export function resolve(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'inputs snapshot',
      run: () =>
        pass.ensure<Secret>(ROLE.inputs, SECRETS, names.inputs, () => inputsSnapshot(pass)),
    })
    .then({
      name: 'build SSH key',
      run: () =>
        pass.ensure(ROLE.sshKey, SECRETS, names.sshKey, () =>
          buildSshKeySecret(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'work volume',
      run: () =>
        pass.ensure(ROLE.work, PVCS, names.work, () => buildWorkPvc(bundle, attempt, ns, names)),
    })
    .then({
      name: 'resolve step',
      run: () => runStep(pass, stage, stepSpec(pass, { step: 'resolve' })),
    });
  return runSteps(list, {});
}

/** DNS: the build DNS's ConfigMap, Deployment and Service, then a check that it answers. */
export function dns(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'build DNS ConfigMap',
      run: () =>
        pass.ensure(ROLE.dnsConfig, CONFIG_MAPS, names.dns, () =>
          buildDnsConfigMap(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'build DNS Deployment',
      run: () =>
        pass.ensure(ROLE.dnsDeployment, DEPLOYMENTS, names.dns, () =>
          buildDnsDeployment(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'build DNS Service',
      run: () =>
        pass.ensure(ROLE.dnsService, SERVICES, names.dns, () =>
          buildDnsService(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'DNS check step',
      run: async () => {
        const ip = await dnsIp(pass);
        if (!ip) return inProgress(`waiting for Service ${ns}/${names.dns} to get a ClusterIP`);
        return runStep(pass, stage, stepSpec(pass, { step: 'dns-check', dnsIp: ip }));
      },
    });
  return runSteps(list, {});
}

/**
 * Ignition: generated one day in the past in the installer VM, which accepts only the build's
 * key; without certificate rotation, by a Job alone.
 */
export async function ignition(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  if (!rotates(pass)) return runStep(pass, stage, stepSpec(pass, { step: 'ignition' }));
  if (stepDone(pass, stage, 'ignition')) return holds();
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'installer cloud-init',
      run: async () => {
        const keySecret = await pass.current<Secret>(SECRETS, names.sshKey);
        const publicKey = Buffer.from(
          keySecret?.data?.[SSH_KEY_FILES.publicKey] ?? '',
          'base64',
        ).toString();
        return pass.ensure(ROLE.installerInit, SECRETS, names.installerCloudInit, () =>
          buildInstallerCloudInit(bundle, attempt, ns, names, publicKey),
        );
      },
    })
    .then({
      name: 'installer VM',
      run: () =>
        pass.ensure(ROLE.installerVm, VIRTUAL_MACHINES, names.installerVm, () =>
          buildInstallerVm(bundle, attempt, ns, names, profileOf(bundle)!),
        ),
    })
    .then({
      name: 'installer VMI',
      run: async () =>
        mapVerdict(await runningVmi(pass, ROLE.installerVmi, names.installerVm), (installer) => ({
          installer,
        })),
    })
    .then({
      name: 'ignition step',
      run: ({ installer }) =>
        runStep(
          pass,
          stage,
          stepSpec(pass, {
            step: 'ignition',
            sshHost: installer.address,
            vmiUid: installer.vmi.metadata.uid,
            clockOffsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS,
          }),
        ),
    });
  return runSteps(list, {});
}

/** ISO: the live ISO with the ignition embedded, written into its PVC. */
export function iso(pass: BuildPass, stage: BuildStage): Promise<Verdict<Nothing>> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'live-ISO volume',
      run: () =>
        pass.ensure(ROLE.liveIso, PVCS, names.liveIso, () =>
          buildLiveIsoPvc(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'ISO step',
      run: () =>
        runStep(
          pass,
          stage,
          stepSpec(pass, {
            step: 'iso',
            isoUrl: outputOf(pass.build, 'resolve', 'isoUrl'),
            isoSha256: outputOf(pass.build, 'resolve', 'isoSha256'),
          }),
        ),
    });
  return runSteps(list, {});
}

/** Boot: the blank root disk and the target VM, booted from the cdrom with the clock shifted. */
export function boot(pass: BuildPass): Promise<Verdict<Nothing>> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const list = steps()
    .then({
      name: 'root disk',
      run: () =>
        pass.ensure(ROLE.rootDisk, DATA_VOLUMES, names.rootDisk, () =>
          buildRootDisk(bundle, attempt, ns, names),
        ),
    })
    .then({
      name: 'target VM',
      run: async () => {
        const ip = await dnsIp(pass);
        if (!ip)
          throw new StepFailure('BuildObjectLost', `Service ${ns}/${names.dns} has no ClusterIP`);
        return pass.ensure(ROLE.targetVm, VIRTUAL_MACHINES, names.targetVm, () =>
          buildTargetVm(bundle, attempt, ns, names, {
            profile: profileOf(bundle)!,
            dnsIp: ip,
            clockOffsetSeconds: rotates(pass) ? INSTALL_CLOCK_OFFSET_SECONDS : 0,
            cdrom: true,
            runStrategy: BUILD_RUN_STRATEGY,
          }),
        );
      },
    })
    .then({
      name: 'target VMI',
      run: async () =>
        mapVerdict(await runningVmi(pass, ROLE.targetVmi, names.targetVm), () => ({})),
    });
  return runSteps(list, {});
}
