import ssh2 from 'ssh2';

const { utils } = ssh2;

/** A key the agent logs in with after the bundle key: the instance's own, or one of this run. */
export interface RunKey {
  /** OpenSSH private key text. */
  privateKey: string;
  /** `ssh-ed25519 <base64>`, no comment, with a trailing newline. */
  authorizedKeyLine: string;
}

export function generateRunKey(): RunKey {
  return keyOf(generateEd25519KeyPair().private);
}

/** A private key (OpenSSH or PEM) with its authorized_keys line. */
export function keyOf(privateKey: string): RunKey {
  checkPrivateKey(privateKey);
  return { privateKey, authorizedKeyLine: `${publicKeyLine(privateKey)}\n` };
}

/** `<type> <base64>` of a private key's public half, as authorized_keys holds it. */
export function publicKeyLine(privateKey: string): string {
  const parsed = utils.parseKey(privateKey);
  const key = (Array.isArray(parsed) ? (parsed as unknown[])[0] : parsed) as {
    type: string;
    getPublicSSH(): Buffer;
  };
  return `${key.type} ${key.getPublicSSH().toString('base64')}`;
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
