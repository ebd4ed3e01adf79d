/** The data key of a `kubernetes.io/dockerconfigjson` Secret. */
export const DOCKER_CONFIG_KEY = '.dockerconfigjson';

/** Standard base64 with its padding, as Go's base64.StdEncoding decodes it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A registry host (with port and path): only such keys are named in a message. */
const REGISTRY = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?(?:\/[A-Za-z0-9._/-]*)?$/;
const MAX_REGISTRY_LENGTH = 255;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nonEmptyString = (value: unknown): value is string =>
  typeof value === 'string' && value !== '';

/**
 * The problem with one `auths` entry, or undefined: `auth` must be base64 of `user:password`,
 * else `username` and `password` must both be set, else `identitytoken`
 * (docs/reference/instances.md#pull-secret).
 */
function entryProblem(entry: unknown): string | undefined {
  if (!isObject(entry)) return 'that is not an object';
  if (entry.auth !== undefined && entry.auth !== '') {
    if (typeof entry.auth !== 'string' || !BASE64.test(entry.auth))
      return 'whose "auth" is not base64';
    if (!Buffer.from(entry.auth, 'base64').toString('utf8').includes(':'))
      return 'whose "auth" does not decode to user:password';
    return undefined;
  }
  if (nonEmptyString(entry.username) && nonEmptyString(entry.password)) return undefined;
  // A registry's OAuth refresh token (Docker's credential helpers, Azure ACR) is a credential too
  // (containers/image pkg/docker/config/config.go reads it as IdentityToken).
  if (nonEmptyString(entry.identitytoken)) return undefined;
  return 'with neither "auth", nor both "username" and "password", nor "identitytoken"';
}

/** How a message names an entry: its registry when the key is one, else its place. */
function entryName(registry: string, index: number): string {
  return registry.length <= MAX_REGISTRY_LENGTH && REGISTRY.test(registry)
    ? `an entry for registry "${registry}"`
    : `entry ${index + 1} of "auths" (its key is not a registry host)`;
}

/**
 * What is wrong with the content of a `.dockerconfigjson`, as container runtimes read it
 * (containers/image pkg/docker/config/config.go), or undefined when it is usable: JSON with an
 * object `auths` of at least one entry, each one usable. The answer names keys, fields and
 * registries only, never a value: a pull secret's content is a credential. JSON.parse's own error
 * quotes the input, so it is never passed on.
 */
export function dockerConfigProblem(content: Buffer): string | undefined {
  let config: unknown;
  try {
    config = JSON.parse(content.toString('utf8'));
  } catch {
    return 'is not valid JSON';
  }
  if (!isObject(config) || !isObject(config.auths)) return 'has no object "auths"';
  const entries = Object.entries(config.auths);
  if (entries.length === 0) return 'has no registry in "auths"';
  for (const [index, [registry, entry]] of entries.entries()) {
    const problem = entryProblem(entry);
    if (problem) return `has ${entryName(registry, index)} ${problem}`;
  }
  return undefined;
}

/**
 * What is wrong with a pull secret (its `.dockerconfigjson` data key and that key's content), as
 * a sentence about `what` (e.g. "pull secret ci/pull-secret"), or undefined when it is usable.
 * Every Secret type is taken that has the key, as before: the type only makes the apiserver check
 * the key's presence and JSON on write.
 */
export function pullSecretProblem(
  what: string,
  data: Record<string, string> | undefined,
): string | undefined {
  const value = data?.[DOCKER_CONFIG_KEY];
  if (!value) return `${what} is missing data key "${DOCKER_CONFIG_KEY}"`;
  const problem = dockerConfigProblem(Buffer.from(value, 'base64'));
  return problem && `${what}: data key "${DOCKER_CONFIG_KEY}" ${problem}; correct the Secret`;
}
