import { createHash } from 'node:crypto';

/** `<type> <base64>` of a host key as SSH sends it (wire format: a length-prefixed type first). */
export function hostKeyLine(blob: Buffer): string {
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = blob.subarray(4, 4 + length).toString('latin1');
  return `${type || 'unknown'} ${blob.toString('base64')}`;
}

/** OpenSSH's fingerprint of a key line, for messages: `SHA256:<base64, unpadded>`. */
export function fingerprint(line: string): string {
  const data = Buffer.from(line.split(/\s+/)[1] ?? '', 'base64');
  return `SHA256:${createHash('sha256').update(data).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Which SSH host key this run accepts: the one recorded on first contact with the VMI (the
 * instance's status) when there is one, else the first one it meets, which then holds for the
 * rest of the run. CRC bundles carry no known host key, so first contact is trusted.
 */
export class HostKeyPolicy {
  /** The key a connection was refused for, for the error message. */
  refused: string | undefined;
  /** True when the key was recorded before this run (not seen first by it). */
  readonly recorded: boolean;
  private expected: string | undefined;

  constructor(recorded: string | undefined) {
    this.expected = recorded;
    this.recorded = recorded !== undefined;
  }

  /** The key this run holds to (recorded, or seen first); undefined before first contact. */
  get key(): string | undefined {
    return this.expected;
  }

  /** ssh2's hostVerifier: accepts the expected key, or the first one on first contact. */
  verify(blob: Buffer): boolean {
    const line = hostKeyLine(blob);
    if (this.expected === undefined) this.expected = line;
    if (line === this.expected) return true;
    this.refused = line;
    return false;
  }
}
