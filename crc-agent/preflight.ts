import { access, readFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import type { AgentConfig } from './config.js';
import { IDENTITY_FILES, validateCrcIdentity } from './crc-identity.js';
import type { CrcIdentity } from './crc-identity.js';
import { AgentError, errorMessage } from './errors.js';
import type { RunKey } from './ssh-key.js';
import { checkPrivateKey, keyOf } from './ssh-key.js';

/** The mounted inputs, checked before the agent touches the guest. */
export interface Inputs {
  bundleKey: string;
  /** The instance's own key; absent when the Job mounts none (an older operator). */
  instanceKey?: RunKey;
  identity: CrcIdentity;
}

/** Reason without the file content: Node's errors name the path and the errno only. */
const readReason = (error: unknown): string =>
  (error as NodeJS.ErrnoException).code ?? errorMessage(error);

async function readBundleKey(config: AgentConfig): Promise<string> {
  try {
    const key = await readFile(config.sshKeyPath, 'utf8');
    checkPrivateKey(key);
    return key;
  } catch (error) {
    const reason =
      error instanceof Error && 'code' in error ? readReason(error) : errorMessage(error);
    throw new AgentError(
      `mounted bundle SSH key failed pre-flight validation: ${config.sshKeyPath}: ${reason}`,
      'the bundle SSH key Secret must be mounted at CRC_SSH_KEY_PATH and hold an unencrypted OpenSSH or PEM private key (the bundle id_ecdsa_crc)',
      { cause: error },
    );
  }
}

/** The instance's SSH key, when mounted; one that is mounted but unusable fails the run. */
async function readInstanceKey(config: AgentConfig): Promise<RunKey | undefined> {
  let text: string;
  try {
    text = await readFile(config.instanceSshKeyPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AgentError(
      `mounted instance SSH key is not readable: ${config.instanceSshKeyPath}: ${readReason(error)}`,
      `the Secret ${config.instanceName}-crc-ssh-key must be mounted at CRC_INSTANCE_SSH_KEY_PATH`,
      { cause: error },
    );
  }
  try {
    return keyOf(text);
  } catch (error) {
    throw new AgentError(
      `mounted instance SSH key failed pre-flight validation: ${config.instanceSshKeyPath}: ${errorMessage(error)}`,
      `the Secret ${config.instanceName}-crc-ssh-key must hold an unencrypted OpenSSH private key (id_ed25519); the operator makes it`,
      { cause: error },
    );
  }
}

async function readIdentity(config: AgentConfig): Promise<CrcIdentity> {
  const identity: Partial<CrcIdentity> = {};
  try {
    for (const [field, file] of Object.entries(IDENTITY_FILES)) {
      const filePath = path.join(config.identityPath, file);
      identity[field as keyof CrcIdentity] = await readFile(filePath, 'utf8').catch(
        (error: unknown) => {
          throw new Error(`${filePath}: ${readReason(error)}`);
        },
      );
    }
    validateCrcIdentity(identity as CrcIdentity, config.apiHostname);
    return identity as CrcIdentity;
  } catch (error) {
    throw new AgentError(
      `mounted CRC identity failed pre-flight validation: ${errorMessage(error)}`,
      `the Secret ${config.instanceName}-crc-identity must be mounted at CRC_IDENTITY_PATH (${config.identityPath}) with ${Object.values(IDENTITY_FILES).join(', ')}, issued for CRC_API_HOSTNAME (${config.apiHostname || 'unset'})`,
      { cause: error },
    );
  }
}

/** The pull secret is read later; here we only make sure it is there, to fail before any guest change. */
async function checkPullSecret(config: AgentConfig): Promise<void> {
  try {
    await access(config.pullSecretPath, constants.R_OK);
  } catch (error) {
    throw new AgentError(
      `pull secret is not readable: ${config.pullSecretPath}: ${readReason(error)}`,
      'mount the pull secret Secret (key .dockerconfigjson) at PULL_SECRET_PATH',
      { cause: error },
    );
  }
}

export async function preflight(config: AgentConfig): Promise<Inputs> {
  const bundleKey = await readBundleKey(config);
  const instanceKey = await readInstanceKey(config);
  const identity = await readIdentity(config);
  await checkPullSecret(config);
  return { bundleKey, ...(instanceKey ? { instanceKey } : {}), identity };
}

export async function readPullSecret(config: AgentConfig): Promise<Buffer> {
  try {
    return await readFile(config.pullSecretPath);
  } catch (error) {
    throw new AgentError(
      `reading the pull secret failed: ${config.pullSecretPath}: ${readReason(error)}`,
      'mount the pull secret Secret (key .dockerconfigjson) at PULL_SECRET_PATH',
      { cause: error },
    );
  }
}
