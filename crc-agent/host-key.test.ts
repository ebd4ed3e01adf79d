import { describe, expect, test } from '@jest/globals';
import ssh2 from 'ssh2';
import { generateEd25519KeyPair } from '../contracts/ssh-key.js';
import { fingerprint, hostKeyLine, HostKeyPolicy } from './host-key.js';

const blob = (): Buffer => {
  const key = ssh2.utils.parseKey(generateEd25519KeyPair().public);
  return (key as ssh2.ParsedKey).getPublicSSH();
};

describe('host keys', () => {
  test('a key line is what authorized_keys and known_hosts hold', () => {
    const key = blob();
    expect(hostKeyLine(key)).toBe(`ssh-ed25519 ${key.toString('base64')}`);
    expect(fingerprint(hostKeyLine(key))).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  test('first contact is trusted, and holds for the rest of the run', () => {
    const first = blob();
    const policy = new HostKeyPolicy(undefined);
    expect(policy.recorded).toBe(false);
    expect(policy.verify(first)).toBe(true);
    expect(policy.key).toBe(hostKeyLine(first));
    const other = blob();
    expect(policy.verify(other)).toBe(false);
    expect(policy.refused).toBe(hostKeyLine(other));
    expect(policy.verify(first)).toBe(true);
  });

  test('a recorded key is the only one accepted', () => {
    const recorded = blob();
    const policy = new HostKeyPolicy(hostKeyLine(recorded));
    expect(policy.recorded).toBe(true);
    expect(policy.verify(blob())).toBe(false);
    expect(policy.verify(recorded)).toBe(true);
  });
});
