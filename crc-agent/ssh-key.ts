import ssh2 from 'ssh2';

const { utils } = ssh2;

/** The per-run key that replaces the bundle key for the second connection; held in memory only. */
export interface RunKey {
  /** OpenSSH private key text. */
  privateKey: string;
  /** `ssh-ed25519 <base64>`, no comment, with a trailing newline. */
  authorizedKeyLine: string;
}

export function generateRunKey(): RunKey {
  const pair = utils.generateKeyPairSync('ed25519');
  const [type, data] = pair.public.trim().split(/\s+/);
  return { privateKey: pair.private, authorizedKeyLine: `${type} ${data}\n` };
}

/** Whether the text parses as an SSH private key ssh2 can sign with (OpenSSH or PEM, unencrypted). */
export function checkPrivateKey(text: string): void {
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error) throw new Error(`not a usable SSH private key: ${parsed.message}`);
  const key = Array.isArray(parsed) ? (parsed as unknown[])[0] : parsed;
  if (!key || !(key as { isPrivateKey(): boolean }).isPrivateKey())
    throw new Error('not a private key');
}
