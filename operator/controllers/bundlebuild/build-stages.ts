import { capture } from './capture-stage.js';
import { onTarget } from './guest-steps.js';
import { boot, dns, ignition, iso, resolve } from './install-stages.js';
import { returnToPresent, zeroAndStop } from './power-stages.js';
import { publish, publishedStatus } from './publish-stage.js';
import type { BuildStage } from './stage-row.js';
import { validate } from './validate-stage.js';

/*
 * The stage table of the bundle build (docs/bundle-build.md#stage-map): the stages in the order
 * they run, each with its condition on the CRCBundle, the agent steps it runs and its work. The
 * stages are numbered by their place (P0 to P13), then the validation (V); nothing else writes a
 * stage's code or name.
 */

type Row = Omit<BuildStage, 'code'>;

/** The stages of the build proper, P0 to P13 by their place here. */
const PHASES: readonly Row[] = [
  { name: 'Resolve', condition: 'Resolved', steps: ['resolve'], work: resolve },
  {
    name: 'DNS',
    condition: 'BuildDNSReady',
    steps: ['dns-check'],
    work: dns,
    operator: 'build-dns ConfigMap, Deployment and Service',
  },
  {
    name: 'Ignition',
    condition: 'IgnitionGenerated',
    steps: ['ignition'],
    work: ignition,
    operator: 'installer VM and its cloud-init Secret (with rotation)',
  },
  { name: 'ISO', condition: 'LiveISOReady', steps: ['iso'], work: iso, operator: 'live-ISO PVC' },
  {
    name: 'Boot',
    condition: 'Booted',
    steps: [],
    work: boot,
    operator: 'blank root DataVolume, target VM with the clock offset',
  },
  { name: 'InstallWait', condition: 'Installed', steps: ['install-wait'], work: onTarget },
  { name: 'Day2', condition: 'Day2Configured', steps: ['day2'], work: onTarget },
  {
    name: 'ReturnToPresent',
    condition: 'CertificatesRotated',
    steps: ['poweroff', 'present'],
    work: returnToPresent,
    operator: 'after poweroff: VMI gone, clock offset 0, cdrom dropped, VM started',
  },
  { name: 'Customize', condition: 'Customized', steps: ['customize'], work: onTarget },
  { name: 'ImagePin', condition: 'PullSecretRemoved', steps: ['image-pin'], work: onTarget },
  { name: 'Seal', condition: 'Sealed', steps: ['seal', 'seal-check'], work: onTarget },
  {
    name: 'ZeroAndStop',
    condition: 'Stopped',
    steps: ['zero', 'poweroff'],
    work: zeroAndStop,
    operator: 'after poweroff: VMI and launcher pod gone, VM halted',
  },
  {
    name: 'Capture',
    condition: 'DiskCaptured',
    steps: [],
    work: capture,
    operator: 'golden DataVolume cloned from the stopped root disk',
  },
  {
    name: 'Publish',
    condition: 'Published',
    steps: ['publish'],
    work: publish,
    publishes: publishedStatus,
    operator: "the bundle's SSH key Secret and metadata ConfigMap",
  },
];

/** After the build proper: a ClusterInstance boots a clone of the golden disk. */
const VALIDATION: Row = {
  name: 'Validate',
  condition: 'Validated',
  steps: [],
  work: validate,
  operator: 'a ClusterInstance boots a clone of the golden disk; Ready once it is Ready',
};

export const BUILD_STAGES: readonly BuildStage[] = [
  ...PHASES.map((row, place) => ({ code: `P${place}`, ...row })),
  { code: 'V', ...VALIDATION },
];

/** The stage of this name (the first for a name no stage has), and the one after it. */
export function stageNamed(name: string | undefined): { stage: BuildStage; next?: BuildStage } {
  const place = Math.max(
    0,
    BUILD_STAGES.findIndex((stage) => stage.name === name),
  );
  return { stage: BUILD_STAGES[place]!, next: BUILD_STAGES[place + 1] };
}
