import { ConfigError } from '../config.js';
import { bundleDirName, bundleFileName, PREP_DIRS, PREP_ENV } from '../../contracts/bundle-prep.js';

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
  PREP_ENV.bundleUrl,
  PREP_ENV.sha256Url,
  PREP_ENV.namespace,
  PREP_ENV.bundleName,
  PREP_ENV.bundleUid,
  PREP_ENV.sshSecretName,
  PREP_ENV.metadataConfigMapName,
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

/**
 * Reads the prep Job's environment (docs/reference/agent-protocol.md#bundle-prep-inputs); names
 * every missing or bad variable.
 */
export function loadBundlePrepConfig(env: Record<string, string | undefined>): BundlePrepConfig {
  const value = (name: string): string => (env[name] ?? '').trim();
  const missing = REQUIRED.filter((name) => !value(name));
  if (missing.length > 0)
    throw new ConfigError(`missing required configuration: ${missing.join(', ')} must be set`);
  checkUrl(PREP_ENV.bundleUrl, value(PREP_ENV.bundleUrl));
  checkUrl(PREP_ENV.sha256Url, value(PREP_ENV.sha256Url));
  const dir = bundleDirName(bundleFileName(value(PREP_ENV.bundleUrl)));
  // The folder name becomes a path under SCRATCH_DIR: one plain segment, never "." or "..".
  if (!/^[A-Za-z0-9._+-]+$/.test(dir) || /^\.+$/.test(dir))
    throw new ConfigError(
      `${PREP_ENV.bundleUrl}="${value(PREP_ENV.bundleUrl)}" does not end with a bundle file name such as crc_libvirt_4.16.0_amd64.crcbundle`,
    );
  return {
    bundleUrl: value(PREP_ENV.bundleUrl),
    sha256Url: value(PREP_ENV.sha256Url),
    namespace: value(PREP_ENV.namespace),
    bundleName: value(PREP_ENV.bundleName),
    bundleUid: value(PREP_ENV.bundleUid),
    sshSecretName: value(PREP_ENV.sshSecretName),
    metadataConfigMapName: value(PREP_ENV.metadataConfigMapName),
    goldenDir: value(PREP_ENV.goldenDir) || PREP_DIRS.golden,
    scratchDir: value(PREP_ENV.scratchDir) || PREP_DIRS.scratch,
    terminationMessagePath: value(PREP_ENV.terminationMessagePath),
  };
}
