import { SECRETS } from '../../../client/api/resources.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import { GitHubApi } from './github-api.js';
import type { SecretObject } from './github-credential.js';
import { credentialFromSecret } from './github-credential.js';
import type { GitHubReclaimSettings } from './github-settings.js';

/** How long a read of the credentials Secret is used before it is read again (rotation). */
const SECRET_REREAD_MS = 5 * 60_000;

/**
 * The GitHub client built from the credentials Secret, read live (the operator caches only the
 * Secrets it manages) and again every few minutes or after GitHub refused it, so that a rotated
 * credential is picked up without a restart. A client is rebuilt only when the Secret changed:
 * an App's installation token is cached inside it.
 */
export class GitHubConnection {
  private current: { resourceVersion: string; api: GitHubApi | { invalid: string } } | undefined;
  private readAtMs = -Infinity;

  constructor(
    private readonly settings: GitHubReclaimSettings,
    private readonly namespace: string,
    private readonly client: KubeClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async api(): Promise<GitHubApi | { invalid: string }> {
    const now = this.clock.now();
    if (this.current && now - this.readAtMs < SECRET_REREAD_MS) return this.current.api;
    const name = this.settings.credentialsSecret;
    const secret = await this.client.getOrUndefined<SecretObject>(SECRETS, name, this.namespace);
    this.readAtMs = now;
    const resourceVersion = secret?.metadata?.resourceVersion ?? '';
    if (this.current?.resourceVersion === resourceVersion && resourceVersion)
      return this.current.api;
    const credential = credentialFromSecret(secret, name);
    const api =
      'invalid' in credential
        ? credential
        : new GitHubApi(
            {
              apiUrl: this.settings.apiUrl,
              caCertificates: this.settings.caCertificates,
              proxy: this.settings.proxy,
            },
            credential,
            this.logger,
            this.clock,
          );
    this.current = { resourceVersion, api };
    return api;
  }

  /** GitHub refused the credential: read the Secret again at the next request. */
  forget(): void {
    this.readAtMs = -Infinity;
  }
}
