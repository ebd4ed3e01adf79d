import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { INSTALL_CLOCK_OFFSET_SECONDS } from '../../contracts/bundle-build.js';
import { SEAL_CHECKS } from '../../crc-agent/bundle-build/seal-checklist.js';
import { freshState, saveState } from '../../dev/guest/build-guest-state.js';
import { readAuthorizedKeys } from '../../dev/platform/simulated-disk.js';
import { playIso } from '../../dev/platform/simulated-build-tools.js';
import { BUILD_PULL_SECRET_TOKEN, BuildBench, outputsOf } from './build-steps.js';

const DAY = 86_400;
const shifted = { BUILD_CLOCK_OFFSET_SECONDS: String(INSTALL_CLOCK_OFFSET_SECONDS) };

/**
 * crc-agent's bundle-build steps against the simulated build guests, without the operator: the
 * guest-side half of a build from the installer VM to the sealed, powered-off disk, and the
 * failures a guest can cause.
 */
describe('bundle-build steps on the simulated build guests', () => {
  let bench: BuildBench;
  beforeAll(async () => {
    bench = await BuildBench.create();
  });
  afterAll(async () => {
    await bench?.stop();
  });

  it('build a sealed disk: shifted install, rotation in the present, every seal check passing', async () => {
    // P2: the installer VM's clock is set a day back, and the ignition is made on it.
    const installer = await bench.bootVmi('installer');
    const ignition = outputsOf(await bench.step('ignition', installer, shifted));
    const notBefore = Date.parse(ignition.certificateNotBefore) / 1000;
    expect(Math.abs(notBefore - (Date.now() / 1000 - DAY))).toBeLessThan(120);
    const installerGuest = bench.guests.guestOf(installer.metadata!.uid!)!;
    const generate = installerGuest.commands.find((c) => c.script === 'installer-ignition')!;
    expect(generate.stdinLines).toEqual([expect.stringContaining(BUILD_PULL_SECRET_TOKEN)]);
    expect(
      installerGuest.commands.filter((c) => c.command.includes(BUILD_PULL_SECRET_TOKEN)),
    ).toEqual([]);
    expect(
      [...installerGuest.received.keys()].some((f) => f.startsWith('/var/tmp/guestcluster-build')),
    ).toBe(false);
    await bench.guests.halt(installer.metadata!.uid!);

    // P3 (the iso step's coreos-installer, played): the ISO carries the live ignition.
    await playIso(bench.path('work'), bench.path('live-iso'));

    // P4–P6 on the target VM at −1 day: live ISO, install to disk, reboot in the same VMI.
    const target = await bench.bootVmi('target', { offsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS });
    const guest = bench.guests.guestOf(target.metadata!.uid!)!;
    const liveHostKey = guest.ssh.hostKey;
    expect(outputsOf(await bench.step('install-wait', target, shifted))).toEqual({
      clusterVersion: '4.22.0',
    });
    expect(bench.guests.guestOf(target.metadata!.uid!)).toBe(guest);
    expect(guest.installed).toBe(true);
    expect(guest.ssh.hostKey).not.toBe(liveHostKey);
    expect(guest.state.bootstrapDone).toBe(true);
    expect(guest.received.get('/opt/kubeconfig')?.toString()).toContain('api.crc.testing');
    expect(outputsOf(await bench.step('day2', target))).toEqual({});
    expect(guest.state.credManager).toBe(true);
    expect(guest.state.machineConfigs).toContain('99-enable-transient-ro');

    // P7: poweroff ends the VMI; a new VMI with offset 0 and no cdrom boots the installed disk.
    expect(outputsOf(await bench.step('poweroff', target))).toEqual({});
    await waitUntil(() => bench.poweredOff.includes(target.metadata!.uid!));
    await bench.guests.halt(target.metadata!.uid!);
    const present = await bench.bootVmi('target', { cdrom: false });
    const presentGuest = bench.guests.guestOf(present.metadata!.uid!)!;
    expect(presentGuest.installed).toBe(true);
    const rotated = outputsOf(await bench.step('present', present));
    expect(Date.parse(rotated.kubeletCertificatesNotAfter) - Date.now()).toBeGreaterThan(
      25 * DAY * 1000,
    );

    // P8–P11.
    expect(outputsOf(await bench.step('customize', present))).toEqual({});
    const htpasswd = Buffer.from(
      presentGuest.commands.find((c) => c.script === 'customize')!.stdinLines![0]!,
      'base64',
    ).toString();
    const kubeadmin = (
      await readFile(bench.path('work/install/auth/kubeadmin-password'), 'utf8')
    ).trim();
    const hashes = new Map(
      htpasswd
        .split('\n')
        .map((l): [string, string] => [l.split(':')[0]!, l.slice(l.indexOf(':') + 1)]),
    );
    expect(bcrypt.compareSync(kubeadmin, hashes.get('kubeadmin') ?? '')).toBe(true);
    expect(bcrypt.compareSync('developer', hashes.get('developer') ?? '')).toBe(true);
    expect(presentGuest.state.machineConfigs).not.toContain('chronyd-mask');
    expect(outputsOf(await bench.step('image-pin', present))).toEqual({});
    expect(presentGuest.state).toMatchObject({
      pullSecretApi: '{}',
      kubeletConfig: '{}',
      pruned: true,
    });
    const bootsBefore = presentGuest.bootId;
    expect(outputsOf(await bench.step('seal', present))).toEqual({});
    expect(presentGuest.bootId).not.toBe(bootsBefore);
    expect(presentGuest.state).toMatchObject({
      kubeletEnabled: false,
      etcdPods: 0,
      etcdLeases: 0,
      journalBoots: 1,
    });
    expect(outputsOf(await bench.step('seal-check', present))).toEqual({
      checked: SEAL_CHECKS.length,
    });
    const checklist = presentGuest.commands.find((c) => c.script === 'seal-checklist')!;
    expect(checklist.command).not.toContain(BUILD_PULL_SECRET_TOKEN);
    expect(checklist.stdinLines).toEqual([BUILD_PULL_SECRET_TOKEN]);
    expect(outputsOf(await bench.step('zero', present))).toEqual({});
    expect(outputsOf(await bench.step('poweroff', present))).toEqual({});
    await waitUntil(() => bench.poweredOff.includes(present.metadata!.uid!));

    // P13's measure of the disk (P12's clone, simulated by a copy); a clone boots with the build key.
    await copyFile(bench.path('disks/rootdisk/disk.img'), bench.path('golden/disk.img'));
    const published = outputsOf(await bench.step('publish', undefined));
    expect(published.diskSHA256).toMatch(/^[0-9a-f]{64}$/);
    expect(published.diskVirtualSizeBytes).toBeGreaterThan(0);
    expect(await readAuthorizedKeys(bench.path('golden/disk.img'))).toBe(bench.key.public.trim());

    // Nothing secret in the steps' log.
    expect(
      bench.log.filter(
        (line) => line.includes(BUILD_PULL_SECRET_TOKEN) || line.includes(kubeadmin),
      ),
    ).toEqual([]);
    expect(bench.log.join('\n')).not.toMatch(/PRIVATE KEY/);
  });

  it('fails the seal check, naming each check, for a disk whose sealing was skipped', async () => {
    // A disk as P9 leaves it: installed, rotated, customized, the pull secret gone; no P10.
    const state = freshState(bench.key.private);
    Object.assign(state, {
      installed: true,
      authorizedKeys: bench.key.public,
      bootstrapDone: true,
      kubeconfig: true,
      certsNotAfter: Date.now() + 30 * DAY * 1000,
      pullSecretApi: '{}',
      kubeletConfig: '{}',
      htpasswdUsers: ['developer', 'kubeadmin'],
      oauth: true,
      kubeadminSecret: false,
      clusterId: '',
      transientRo: true,
    });
    await mkdir(bench.path('disks/unsealed'), { recursive: true });
    await saveState(bench.path('disks/unsealed'), state);
    const vmi = await bench.bootVmi('target', { name: 'unsealed', disk: 'unsealed', cdrom: false });
    const result = await bench.step('seal-check', vmi);
    expect(result).toMatchObject({ ok: false, reason: 'SealCheckFailed' });
    const message = result.ok ? '' : result.message;
    for (const check of [
      'kubelet-disabled',
      'nodeip-conf',
      'crc-env',
      'tap0',
      'journal-clean',
      'etcd-pods',
      'etcd-leases',
    ])
      expect(message).toContain(`${check} (`);
    expect(message).not.toContain('pull-secret-api (');
    await bench.guests.halt(vmi.metadata!.uid!);
  });

  it('fails the seal check on an injected miss, and the install wait on a guest that never installs', async () => {
    bench.faults.set('sealed', { failingChecks: ['build-dns-absent'] });
    const sealed = await bench.bootVmi('target', { name: 'sealed', cdrom: false });
    expect(bench.guests.guestOf(sealed.metadata!.uid!)!.state.kubeletEnabled).toBe(false);
    const check = await bench.step('seal-check', sealed);
    expect(check).toMatchObject({
      ok: false,
      reason: 'SealCheckFailed',
      message: expect.stringContaining('build-dns-absent (172.30.0.53)'),
    });
    await bench.guests.halt(sealed.metadata!.uid!);

    bench.faults.set('stuck', { installNeverCompletes: true });
    const stuck = await bench.bootVmi('target', {
      name: 'stuck',
      disk: 'stuck',
      offsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS,
    });
    expect(bench.guests.guestOf(stuck.metadata!.uid!)!.installed).toBe(false);
    const wait = await bench.step('install-wait', stuck, {
      ...shifted,
      BUILD_INSTALL_TIMEOUT: '500ms',
    });
    expect(wait).toMatchObject({
      ok: false,
      reason: 'InstallTimedOut',
      message: expect.stringContaining('live ISO'),
    });
    await bench.guests.halt(stuck.metadata!.uid!);
  });

  it('stops the install when the guest clock is not shifted, and names an unreachable guest', async () => {
    bench.faults.set('no-rtc', { ignoresClockOffset: true });
    const vmi = await bench.bootVmi('target', {
      name: 'no-rtc',
      disk: 'no-rtc',
      offsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS,
    });
    const wait = await bench.step('install-wait', vmi, shifted);
    expect(wait).toMatchObject({ ok: false, reason: 'InstallWaitClockNotShifted' });
    await bench.guests.halt(vmi.metadata!.uid!);

    const gone = await bench.step('day2', vmi, { CRC_AGENT_SSH_WAIT_TIMEOUT: '300ms' });
    expect(gone).toMatchObject({
      ok: false,
      reason: 'Day2GuestUnreachable',
      message: expect.stringContaining('virtctl console'),
    });
  });

  it('does not rotate certificates on a cluster without the credential manager', async () => {
    const state = freshState(bench.key.private);
    Object.assign(state, {
      installed: true,
      authorizedKeys: bench.key.public,
      bootstrapDone: true,
      kubeconfig: true,
      certsNotAfter: Date.now() - 1000,
    });
    await mkdir(bench.path('disks/no-day2'), { recursive: true });
    await saveState(bench.path('disks/no-day2'), state);
    const vmi = await bench.bootVmi('target', { name: 'no-day2', disk: 'no-day2', cdrom: false });
    const result = await bench.step('present', vmi);
    expect(result).toMatchObject({ ok: false, reason: 'ReturnToPresentCertificatesNotRotated' });
    await bench.guests.halt(vmi.metadata!.uid!);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('crc-agent bundle-build as the Job runs it', () => {
  it('runs a step from the built agent, finds the guest scripts from dist/, and leaves its result', async () => {
    const bench = await BuildBench.create();
    try {
      await mkdir(bench.path('disks/process'), { recursive: true });
      await saveState(bench.path('disks/process'), {
        ...freshState(bench.key.private),
        installed: true,
        authorizedKeys: bench.key.public,
      });
      const vmi = await bench.bootVmi('target', { name: 'process', disk: 'process', cdrom: false });
      const guest = bench.guests.guestOf(vmi.metadata!.uid!)!;
      const run = await bench.process('zero', vmi);
      expect(run.exitCode).toBe(0);
      expect(run.result).toEqual({ step: 'zero', ok: true, outputs: {} });
      expect(guest.commands.map((c) => c.script).filter(Boolean)).toEqual(['zero-fill']);
      expect(guest.state.zeroed).toBe(true);
    } finally {
      await bench.stop();
    }
  });
});
