import { ConfigError } from '../config.js';
import { bundleDirName, bundleFileName } from './contract.js';

/** Where the prep Job mounts the golden and scratch PVCs (operator spec §3.11). */
export const DEFAULT_PREP_DIRS = { golden: '/golden', scratch: '/work' } as const;

/** The one typed configuration of a bundle-prep run, validated before anything starts. */
export interface BundlePrepConfig {
  bundleUrl: string;
  sha256Url: string;
  /** The operator namespace: where the Secret and the ConfigMap are published. */
  namespace: string;
  bundleName: string;
  bundleUid: string;
  sshSecretName: string;
  metadataConfigMapName: string;
  goldenDir: string;
  scratchDir: string;
  /** When set, a failure is also written here (the container's terminationMessagePath). */
  terminationMessagePath: string;
}

const REQUIRED = [
  'BUNDLE_URL',
  'SHA256_URL',
  'NAMESPACE',
  'BUNDLE_NAME',
  'BUNDLE_UID',
  'SSH_SECRET_NAME',
  'METADATA_CONFIGMAP_NAME',
] as const;

function checkUrl(variable: string, text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`${variable}="${text}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigError(`${variable}="${text}" is not an http(s) URL`);
}

/** Reads the prep Job's environment (crc-agent spec §8.1); names every missing or bad variable. */
export function loadBundlePrepConfig(env: Record<string, string | undefined>): BundlePrepConfig {
  const value = (name: string): string => (env[name] ?? '').trim();
  const missing = REQUIRED.filter((name) => !value(name));
  if (missing.length > 0)
    throw new ConfigError(`missing required configuration: ${missing.join(', ')} must be set`);
  checkUrl('BUNDLE_URL', value('BUNDLE_URL'));
  checkUrl('SHA256_URL', value('SHA256_URL'));
  const dir = bundleDirName(bundleFileName(value('BUNDLE_URL')));
  // The folder name becomes a path under SCRATCH_DIR: one plain segment, never "." or "..".
  if (!/^[A-Za-z0-9._+-]+$/.test(dir) || /^\.+$/.test(dir))
    throw new ConfigError(
      `BUNDLE_URL="${value('BUNDLE_URL')}" does not end with a bundle file name such as crc_libvirt_4.16.0_amd64.crcbundle`,
    );
  return {
    bundleUrl: value('BUNDLE_URL'),
    sha256Url: value('SHA256_URL'),
    namespace: value('NAMESPACE'),
    bundleName: value('BUNDLE_NAME'),
    bundleUid: value('BUNDLE_UID'),
    sshSecretName: value('SSH_SECRET_NAME'),
    metadataConfigMapName: value('METADATA_CONFIGMAP_NAME'),
    goldenDir: value('GOLDEN_DIR') || DEFAULT_PREP_DIRS.golden,
    scratchDir: value('SCRATCH_DIR') || DEFAULT_PREP_DIRS.scratch,
    terminationMessagePath: value('TERMINATION_MESSAGE_PATH'),
  };
}
