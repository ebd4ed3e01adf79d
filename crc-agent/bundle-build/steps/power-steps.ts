import { waitForStableCluster } from '../cluster-waits.js';
import { clockProblem, PRESENT_CLOCK_TOLERANCE_SECONDS } from '../clock-check.js';
import { epochResult } from '../script-output.js';
import type { ScriptOutput } from '../script-output.js';
import type { StepRunner } from '../step-context.js';

/** P7 and P11: an in-guest poweroff (never a forced stop, docs/bundle-build.md#6-certificate-rotation-in-the-present-p6-p7); the VMI then ends. */
export const runPoweroff: StepRunner<'poweroff'> = async (context) => {
  const guest = await context.guest();
  await guest.poweroff();
  context.log.info('Asked the build guest to power off');
  return {};
};

/** The openssl enddate form (`Jan_1_00:00:00_2027_GMT`, spaces as `_`) as a Date. */
function notAfter(output: ScriptOutput, which: string): Date | undefined {
  const text = output.results.get(`kubelet-${which}-not-after`)?.replace(/_/g, ' ');
  const date = text ? new Date(text) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/**
 * P7 after the restart (docs/bundle-build.md#6-certificate-rotation-in-the-present-p6-p7): the guest is back in the present, the CSR loop runs until
 * both kubelet certificates are valid for 25 more days (60 passes at most), and the cluster is
 * stable again.
 */
export const runPresent: StepRunner<'present'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  let pass = await guest.script('cert-rotation');
  const problem = clockProblem(
    epochResult(pass, 'cert-rotation'),
    context.now(),
    0,
    PRESENT_CLOCK_TOLERANCE_SECONDS,
  );
  if (problem)
    throw context.fail(
      'ClockNotPresent',
      `${problem}: the VM must restart with spec.domain.clock.utc.offsetSeconds 0 before this step`,
    );
  if (config.certificateRotation === 'Enabled') {
    const valid = (output: ScriptOutput): boolean =>
      output.results.get('kubelet-client') === 'valid' &&
      output.results.get('kubelet-server') === 'valid';
    try {
      pass = await guest.poll(
        'both kubelet certificates to be valid for 25 more days',
        60 * config.timings.retryIntervalMs,
        async () => {
          const output = await guest.script('cert-rotation');
          if (!valid(output))
            throw new Error(
              `client ${output.results.get('kubelet-client')}, server ${output.results.get('kubelet-server')}, ${output.results.get('approved')} CSRs approved`,
            );
          return output;
        },
      );
    } catch (error) {
      throw context.fail(
        'CertificatesNotRotated',
        `the kubelet certificates were not rotated (${(error as Error).message}); check oc get csr in the guest and that the cred manager ran in P6`,
        error,
      );
    }
    log.info('Kubelet certificates rotated');
  }
  await waitForStableCluster(context, guest);
  const dates = [notAfter(pass, 'client'), notAfter(pass, 'server')].filter((d): d is Date => !!d);
  if (dates.length < 2)
    throw context.fail(
      'CertificatesNotRotated',
      'the guest did not report both kubelet certificates',
    );
  const earliest = new Date(Math.min(...dates.map((d) => d.getTime())));
  return { kubeletCertificatesNotAfter: earliest.toISOString() };
};
