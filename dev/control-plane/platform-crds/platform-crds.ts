import { ControlPlaneError } from '../errors.js';
import { standInCrd } from './stand-in/schema.js';
import { HYPERSHIFT_STAND_INS } from './stand-in/hypershift.js';
import { OPEN_STAND_INS } from './stand-in/open.js';
import { OPERAND_STAND_INS } from './stand-in/operands.js';
import { CDI_CRDS } from './cdi-crds.js';
import type { CrdCacheOptions } from './crd-cache.js';
import { cachedCrds, PLATFORM_CRDS_ENV } from './crd-cache.js';
import type { CrdManifest } from './crd-manifest.js';
import { pick } from './crd-manifest.js';
import { KUBEVIRT_CRDS } from './kubevirt-crds.js';
import { OPENSHIFT_CRDS } from './openshift-crds.js';
import { upstreamCrdFolder, upstreamFolderCrds } from './upstream-folder-crds.js';

export { PLATFORM_CRDS_ENV };

const MANAGEMENT_OPENSHIFT_KINDS = [
  'routes.route.openshift.io',
  'ingresses.config.openshift.io',
  'clusterversions.config.openshift.io',
  'ingresscontrollers.operator.openshift.io',
];
const GUEST_OPENSHIFT_KINDS = [
  'clusterversions.config.openshift.io',
  'clusteroperators.config.openshift.io',
  'apiservers.config.openshift.io',
  'oauths.config.openshift.io',
];

/** Whether the proxy-served kinds get open stand-ins (GUESTCLUSTER_PLATFORM_CRDS=stand-ins). */
export function useStandIns(): boolean {
  const value = process.env[PLATFORM_CRDS_ENV];
  if (value === undefined || value === '' || value === 'upstream') return false;
  if (value === 'stand-ins') return true;
  throw new ControlPlaneError(
    `${PLATFORM_CRDS_ENV}=${value} is not a choice: set it to "upstream" (the default) or "stand-ins"`,
  );
}

const openStandIns = (names: string[]): CrdManifest[] =>
  names.map((name) => pick(OPEN_STAND_INS.map(standInCrd), name, 'the open stand-ins'));

export interface PlatformCrds {
  crds: CrdManifest[];
  /** Where each group of kinds came from, for the log. */
  sources: string[];
}

/**
 * The third-party kinds of the management cluster: KubeVirt, CDI and OpenShift's from the Go
 * module proxy (cached by version), HyperShift, HCO and MCE from the upstream CRD folder when it
 * is there, else closed stand-ins of our own.
 */
export async function managementPlatformCrds(options: CrdCacheOptions = {}): Promise<PlatformCrds> {
  const sources: string[] = [];
  const crds: CrdManifest[] = [];
  if (useStandIns()) {
    crds.push(
      ...openStandIns([
        'virtualmachines.kubevirt.io',
        'virtualmachineinstances.kubevirt.io',
        'datavolumes.cdi.kubevirt.io',
        ...MANAGEMENT_OPENSHIFT_KINDS,
      ]),
    );
    sources.push(
      `KubeVirt, CDI and OpenShift kinds: open stand-ins (${PLATFORM_CRDS_ENV}=stand-ins)`,
    );
  } else {
    crds.push(...(await cachedCrds(KUBEVIRT_CRDS, options)));
    crds.push(...(await cachedCrds(CDI_CRDS, options)));
    const openshift = await cachedCrds(OPENSHIFT_CRDS, options);
    crds.push(
      ...MANAGEMENT_OPENSHIFT_KINDS.map((name) => pick(openshift, name, OPENSHIFT_CRDS.label)),
    );
    sources.push(KUBEVIRT_CRDS.label, CDI_CRDS.label, OPENSHIFT_CRDS.label);
  }
  const folder = upstreamCrdFolder();
  const fromFolder = await upstreamFolderCrds(folder);
  if (fromFolder) {
    crds.push(...fromFolder);
    sources.push(`HyperShift, HCO and MCE from ${folder}`);
  } else {
    crds.push(...[...HYPERSHIFT_STAND_INS, ...OPERAND_STAND_INS].map(standInCrd));
    sources.push(`HyperShift, HCO and MCE: closed stand-ins (${folder} is not there)`);
  }
  return { crds, sources };
}

/** The config.openshift.io kinds a CRC guest's API serves (crc-agent reads and writes them). */
export async function guestPlatformCrds(options: CrdCacheOptions = {}): Promise<CrdManifest[]> {
  if (useStandIns()) return openStandIns(GUEST_OPENSHIFT_KINDS);
  const openshift = await cachedCrds(OPENSHIFT_CRDS, options);
  return GUEST_OPENSHIFT_KINDS.map((name) => pick(openshift, name, OPENSHIFT_CRDS.label));
}
