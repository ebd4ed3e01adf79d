import { describe, expect, test } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { buildHtpasswd, randomKubeadminPassword } from './htpasswd.js';

const hashOf = (text: string, user: string): string =>
  text
    .split('\n')
    .find((line) => line.startsWith(`${user}:`))!
    .slice(user.length + 1);

describe('htpasswd', () => {
  test('from nothing: both agent users, verifiable, no trailing newline', () => {
    const text = buildHtpasswd('', { kubeadmin: 'k-pass', developer: 'developer' });
    expect(text.endsWith('\n')).toBe(false);
    expect(text.split('\n')).toHaveLength(2);
    expect(bcrypt.compareSync('k-pass', hashOf(text, 'kubeadmin'))).toBe(true);
    expect(bcrypt.compareSync('developer', hashOf(text, 'developer'))).toBe(true);
    expect(hashOf(text, 'kubeadmin')).toMatch(/^\$2[aby]\$10\$/);
  });

  test('keeps other users in order, replaces the agent users, drops junk lines', () => {
    const existing = ' alice:$2a$04$x \nkubeadmin:old\n\nnot-a-line\nbob:$2a$04$y\ndeveloper:old';
    const text = buildHtpasswd(existing, { kubeadmin: 'new', developer: 'developer' });
    const lines = text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['alice:$2a$04$x', 'bob:$2a$04$y']);
    expect(lines).toHaveLength(4);
    expect(bcrypt.compareSync('new', hashOf(text, 'kubeadmin'))).toBe(true);
  });

  test('kubeadmin passwords have the XXXXX-XXXXX-XXXXX-XXXXX shape', () => {
    expect(randomKubeadminPassword()).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    expect(randomKubeadminPassword(() => Buffer.alloc(20, 63))).toBe('bbbbb-bbbbb-bbbbb-bbbbb');
    expect(
      randomKubeadminPassword(() => {
        throw new Error('no entropy');
      }),
    ).toBe('changeme-changeme-changeme-changeme');
  });
});
