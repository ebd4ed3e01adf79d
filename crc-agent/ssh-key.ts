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
  const pair = generateEd25519KeyPair();
  const [type, data] = pair.public.trim().split(/\s+/);
  return { privateKey: pair.private, authorizedKeyLine: `${type} ${data}\n` };
}

/**
 * An ed25519 key pair in OpenSSH format that ssh2 can read back. ssh2's generator now and then
 * (about one key in 300) writes a private key its own parser rejects as malformed; such a key is
 * thrown away and another made.
 */
export function generateEd25519KeyPair(): { private: string; public: string } {
  for (let attempt = 1; ; attempt++) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) || attempt >= 10) return pair;
  }
}

/** Whether the text parses as an SSH private key ssh2 can sign with (OpenSSH or PEM, unencrypted). */
export function checkPrivateKey(text: string): void {
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error) throw new Error(`not a usable SSH private key: ${parsed.message}`);
  const key = Array.isArray(parsed) ? (parsed as unknown[])[0] : parsed;
  if (!key || !(key as { isPrivateKey(): boolean }).isPrivateKey())
    throw new Error('not a private key');
}
