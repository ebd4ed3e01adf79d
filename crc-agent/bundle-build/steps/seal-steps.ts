import { BUILD_NODE } from '../../../contracts/bundle-build.js';
import type { StepRunner } from '../step-context.js';
import { GUEST_WORK_DIR } from '../work-files.js';
import { SEAL_CHECKS, sealMarker, sealVerdict } from '../seal-checklist.js';
import { pullSecretLine } from './ignition-step.js';

/**
 * P10 (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10): the OS sealing, the first reboot into the new deployment, the cleanup,
 * the second reboot, etcd offline, cloud-init. The reboots happen inside the VMI; nothing starts
 * on them, the kubelet is disabled.
 */
export const runSeal: StepRunner<'seal'> = async (context) => {
  const { log } = context;
  const guest = await context.guest();
  const resolved = await context.resolved();
  const work = GUEST_WORK_DIR.target;
  await guest.script('os-seal', {
    args: [work, resolved.routesControllerImage, BUILD_NODE.internalIP],
  });
  await guest.reboot();
  await guest.script('os-cleanup', { args: [work] });
  await guest.reboot();
  const etcd = await guest.script('etcd-offline');
  log.info(
    {
      podsOutsideNetwork: etcd.results.get('etcd-pods-outside-network'),
      leases: etcd.results.get('etcd-leases'),
    },
    'etcd cleaned offline',
  );
  await guest.script('cloud-init-seal', { args: ['false'] });
  return {};
};

/** The seal checklist (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10): the build fails on any miss, naming each check that failed or was not reported. */
export const runSealCheck: StepRunner<'seal-check'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const marker = sealMarker(await pullSecretLine(context));
  if (!marker)
    throw context.fail(
      'PullSecretInvalid',
      'the pull secret has no auths entry to search the disk for; spec.build.pullSecretRef must name a docker config with auths',
    );
  const output = await guest.script('seal-checklist', {
    args: [
      String(Math.floor(context.now() / 1000)),
      config.dnsIp,
      '0',
      '-',
      config.certificateRotation,
    ],
    input: [marker],
  });
  const verdict = sealVerdict(output.checks);
  if (verdict.failed.length > 0)
    throw context.fail(
      'CheckFailed',
      `the seal checklist failed ${verdict.failed.length} of ${SEAL_CHECKS.length} checks: ${verdict.failed.join('; ')}`,
    );
  log.info({ checked: verdict.checked }, 'Seal checklist passed');
  return { checked: verdict.checked };
};

/** P11 first half: the free space of the root filesystem zeroed (replaces guestfish's). */
export const runZero: StepRunner<'zero'> = async (context) => {
  const guest = await context.guest();
  const output = await guest.script('zero-fill');
  context.log.info({ zeroedBytes: output.results.get('zeroed-bytes') }, 'Free space zeroed');
  return {};
};
