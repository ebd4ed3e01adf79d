import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';

/** Users whose lines the agent owns; every other user's line is kept as it is. */
export const AGENT_USERS = ['kubeadmin', 'developer'] as const;

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A kubeadmin-style password, `XXXXX-XXXXX-XXXXX-XXXXX`, from 20 random bytes modulo 62. */
export function randomKubeadminPassword(random: (size: number) => Buffer = randomBytes): string {
  let bytes: Buffer;
  try {
    bytes = random(20);
  } catch {
    return 'changeme-changeme-changeme-changeme';
  }
  const chars = [...bytes].map((byte) => ALPHABET[byte % ALPHABET.length]!);
  return [0, 5, 10, 15].map((start) => chars.slice(start, start + 5).join('')).join('-');
}

/**
 * Builds the htpasswd file: the existing lines of other users, in order, then one bcrypt line
 * (cost 10) for each agent user. No trailing newline.
 */
export function buildHtpasswd(existing: string, passwords: Record<string, string>): string {
  const kept = existing
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.includes(':'))
    .filter(
      (line) => !(AGENT_USERS as readonly string[]).includes(line.slice(0, line.indexOf(':'))),
    );
  const owned = Object.entries(passwords).map(
    ([user, password]) => `${user}:${bcrypt.hashSync(password, 10)}`,
  );
  return [...kept, ...owned].join('\n');
}
