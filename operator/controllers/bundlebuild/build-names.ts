import type { BuildStep } from '../../../contracts/bundle-build.js';
import { bundleNames } from '../bundles/bundle-names.js';

/**
 * The names of one build attempt's objects in the operator namespace: a prefix of the bundle
 * name, the attempt and a role, so that a second attempt never meets the first's objects and
 * every name stays a valid DNS label (VM and Job names end up in pod names and labels).
 */
export interface BuildNames {
  inputs: string;
  sshKey: string;
  installerCloudInit: string;
  dns: string;
  work: string;
  liveIso: string;
  rootDisk: string;
  installerVm: string;
  targetVm: string;
  validation: string;
  /** The NetworkPolicy that lets only the build's step Jobs reach its VMs. */
  guests: string;
  /** The bundle's golden disk (not of one attempt: what the bundle publishes). */
  golden: string;
  /** A step's Job: the stage's code too, as two stages run `poweroff`. */
  job(code: string, step: BuildStep): string;
}

const PREFIX_LENGTH = 36;

export function buildNames(bundleName: string, attempt: string): BuildNames {
  const base = `${bundleName.slice(0, PREFIX_LENGTH).replace(/[-.]+$/, '')}-${attempt}`;
  return {
    inputs: `${base}-inputs`,
    sshKey: `${base}-ssh`,
    installerCloudInit: `${base}-installer-init`,
    dns: `${base}-dns`,
    work: `${base}-work`,
    liveIso: `${base}-live-iso`,
    rootDisk: `${base}-rootdisk`,
    installerVm: `${base}-installer`,
    targetVm: `${base}-crc`,
    validation: `${base}-validate`,
    guests: `${base}-guests`,
    golden: bundleNames(bundleName).golden,
    job: (code, step) => `${base}-${code.toLowerCase()}-${step}`,
  };
}
