import { ApiClient } from '../../../client/kube/api-client.js';
import { exchangedAccess } from '../../../client/lease/exchanged-access.js';
import { badInput } from './exit-codes.js';
import { tell } from './terminal.js';

/** The CI's ID token comes from this variable unless --id-token-file names a file. */
export const ID_TOKEN_VARIABLE = 'GUESTCLUSTER_ID_TOKEN';

/** The management cluster without a stored credential: its server, and the exchange. */
export interface ExchangeFlags {
  server?: string;
  certificateAuthority?: string;
  tokenExchange?: string;
  tokenExchangeCa?: string;
  idTokenFile?: string;
  namespace?: string;
}

type ReadFile = (file: string) => string;

function https(flag: string, value: string | undefined): string {
  let url: URL | undefined;
  try {
    url = new URL(value ?? '');
  } catch {
    // Said below.
  }
  if (url?.protocol !== 'https:')
    throw badInput(`${flag} must be an https:// URL (got "${value ?? ''}")`);
  return value!.replace(/\/+$/, '');
}

function pemFile(flag: string, file: string | undefined, readFile: ReadFile): string | undefined {
  if (!file) return undefined;
  try {
    return readFile(file);
  } catch (error) {
    throw badInput(`${flag} ${file} cannot be read: ${(error as Error).message}`);
  }
}

/**
 * `--token-exchange`: the CI's ID token (GitLab's `id_tokens:` variable GUESTCLUSTER_ID_TOKEN,
 * or a file a platform keeps fresh, --id-token-file) exchanged at the operator's token exchange
 * for a short-lived token of the ServiceAccount a CIAccessPolicy names
 * (docs/ci-identities.md#the-cli). The token is read again for each exchange: a file that is
 * rotated (a projected token) lets a long wait exchange again; a variable serves one exchange.
 */
export function exchangedManagement(
  flags: ExchangeFlags,
  env: NodeJS.ProcessEnv,
  readFile: ReadFile,
): { api: ApiClient; namespace: string; server: string } {
  const server = https('--server', flags.server);
  const url = https('--token-exchange', flags.tokenExchange);
  const idToken = (): Promise<string> => {
    const token = flags.idTokenFile
      ? pemFile('--id-token-file', flags.idTokenFile, readFile)?.trim()
      : env[ID_TOKEN_VARIABLE]?.trim();
    if (!token)
      return Promise.reject(
        badInput(
          `No ID token: set ${ID_TOKEN_VARIABLE} (GitLab: id_tokens) or give --id-token-file`,
        ),
      );
    return Promise.resolve(token);
  };
  const namespace = flags.namespace || 'default';
  const context = {
    server,
    ca: pemFile('--certificate-authority', flags.certificateAuthority, readFile),
    insecureSkipTlsVerify: false,
  };
  const access = exchangedAccess(context, {
    idToken,
    endpoint: {
      url,
      certificateAuthority: pemFile('--token-exchange-ca', flags.tokenExchangeCa, readFile),
    },
    namespace,
    // Nothing to mask in a terminal; the CLI never prints a token.
    secret: () => undefined,
    // Which identity the job acts as, for the CI log (never the token).
    exchanged: (token) =>
      tell(
        `Exchanged the ID token for a token of ServiceAccount ${token.namespace}/${token.serviceAccount} (CIAccessPolicy ${token.policy}, rule ${token.rule}), valid until ${token.expirationTimestamp}`,
      ),
  });
  return { api: new ApiClient(access), namespace, server };
}
