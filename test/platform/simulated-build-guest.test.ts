import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { INSTALL_CLOCK_OFFSET_SECONDS } from '../../contracts/bundle-build.js';
import { guestScript } from '../../crc-agent/bundle-build/guest-scripts.js';
import type { GuestScript } from '../../crc-agent/bundle-build/guest-scripts.js';
import { SEAL_CHECKS } from '../../crc-agent/bundle-build/seal-checklist.js';
import ssh2 from 'ssh2';
import type { SimulatedCrcGuest } from '../../dev/guest/simulated-crc-guest.js';
import { sshLogin } from '../../dev/guest/ssh-login.js';
import type { VmiObject } from '../../dev/platform/host/platform-kinds.js';
import { SimulatedCrcGuests } from '../../dev/platform/kubevirt/simulated-crc-guests.js';
import {
  DISK_FILE,
  readAuthorizedKeys,
  readInstalledMachine,
  writeSimulatedDisk,
} from '../../dev/platform/disks/simulated-disk.js';
import { vmiMachine } from '../../dev/platform/disks/vmi-machine.js';
import { CRC_KUBEVIRT_V1, profileVmiSpec } from '../../operator/api/vm-profile.js';
import { playIso } from '../../dev/platform/build/simulated-build-tools.js';
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
    // It was installed on the profile's machine, which its clones need to come up.
    expect(await readInstalledMachine(bench.path('golden/disk.img'))).toEqual({
      firmware: 'bios',
      binding: 'masquerade',
      network: 'pod',
    });

    // The simulated guest answers only with lines the repository's scripts can print.
    for (const vmiGuest of [installerGuest, guest, presentGuest])
      for (const received of vmiGuest.commands.filter((c) => c.script)) {
        const printable = printableLines(guestScript(received.script as GuestScript));
        for (const line of received.answered!.split('\n').filter(Boolean))
          expect([received.script, printable.some((pattern) => pattern.test(line))]).toEqual([
            received.script,
            true,
          ]);
      }

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
    await bench.installedDisk('unsealed', {
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

  it('fails the seal check on an injected miss, and the install wait on a wrong hostname and on a guest that never installs', async () => {
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

    bench.faults.set('renamed', { hostname: 'virt-launcher-renamed' });
    const renamed = await bench.bootVmi('target', {
      name: 'renamed',
      disk: 'renamed',
      offsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS,
    });
    expect(await bench.step('install-wait', renamed, shifted)).toMatchObject({
      ok: false,
      reason: 'InstallWaitNodeIdentityWrong',
      message: expect.stringContaining("the guest's hostname is virt-launcher-renamed, not crc"),
    });
    await bench.guests.halt(renamed.metadata!.uid!);

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

  it('keeps the short-lived kubelet certificates of a build without rotation, and fails them with it', async () => {
    await bench.installedDisk('short-certs', { certsNotAfter: Date.now() + 3600_000 });
    const vmi = await bench.bootVmi('target', {
      name: 'short-certs',
      disk: 'short-certs',
      cdrom: false,
    });
    const rotating = await bench.step('seal-check', vmi);
    expect(rotating.ok ? '' : rotating.message).toContain('kubelet-client-cert (');
    const keeping = await bench.step('seal-check', vmi, { BUILD_CERTIFICATE_ROTATION: 'Disabled' });
    expect(keeping.ok ? '' : keeping.message).not.toContain('kubelet-client-cert (');
    const checklist = bench.guests
      .guestOf(vmi.metadata!.uid!)!
      .commands.filter((c) => c.script === 'seal-checklist');
    expect(checklist.map((c) => c.args?.[4])).toEqual(['Enabled', 'Disabled']);
    await bench.guests.halt(vmi.metadata!.uid!);
  });

  it('does not rotate certificates on a cluster without the credential manager', async () => {
    await bench.installedDisk('no-day2', {
      bootstrapDone: true,
      kubeconfig: true,
      certsNotAfter: Date.now() - 1000,
    });
    const vmi = await bench.bootVmi('target', { name: 'no-day2', disk: 'no-day2', cdrom: false });
    const result = await bench.step('present', vmi);
    expect(result).toMatchObject({ ok: false, reason: 'ReturnToPresentCertificatesNotRotated' });
    await bench.guests.halt(vmi.metadata!.uid!);
  });
});

/**
 * The `result <key>` and `check <name>` lines a script can print, as patterns: a key built from
 * a variable (`kubelet-$which-cert`) matches any word there; the checklist's names are those it
 * reports (literally, through a variable, or in its list of checks etcd could not answer).
 */
function printableLines(script: string): RegExp[] {
  const word = (template: string): string =>
    template
      .replace(/[.*+?^{}()|[\]\\]/g, '\\$&')
      .replace(/\\\$\\\{[^}]*\\\}|\\\$[a-z_]+|\$\\\{[^}]*\\\}|\$[a-z_]+/g, '[a-z0-9-]+');
  const patterns = [...script.matchAll(/result ([a-z0-9${}%._-]+)/g)].map(
    (m) => new RegExp(`^result ${word(m[1]!)}( |$)`),
  );
  const names = [
    ...[...script.matchAll(/report "?([a-z0-9$-]+)"?/g)].map((m) => m[1]!),
    ...(/for name in ([a-z0-9 -]+); do/.exec(script)?.[1]?.split(' ') ?? []),
  ].filter((name) => name !== '"$1"' && name !== '$1' && name !== '$name');
  return [...patterns, ...names.map((name) => new RegExp(`^check ${word(name)} (pass|fail)( |$)`))];
}

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A clone of a built disk in a crc VMI (the simulated crc guests, as every consumer and the
 * validation instance boot): it comes up on the machine the disk was installed on (the bundle's
 * VM profile) and not on another, as the real guest fails; a disk without that record boots as
 * before.
 */
describe('a crc guest booted from a built disk', () => {
  const key = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
  const guests = new SimulatedCrcGuests({
    // A guest API control plane would come up for the bridged guest if its disk allowed it; the
    // others need none here (the crc tests show a matching guest's cluster getting Ready).
    api: (vmi) => (vmi.metadata?.name === 'bridged' ? 'per-guest' : 'never-ready'),
  });
  let dir: string;
  let uids = 0;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'built-disk-'));
    await mkdir(path.join(dir, 'built'));
    await mkdir(path.join(dir, 'downloaded'));
    const machine = vmiMachine({ spec: profileVmiSpec(CRC_KUBEVIRT_V1) });
    await writeSimulatedDisk(path.join(dir, 'built', DISK_FILE), key.public, machine);
    await writeSimulatedDisk(path.join(dir, 'downloaded', DISK_FILE), key.public);
  });
  afterAll(async () => {
    await guests.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Boots a crc VMI of `spec` from the disk folder `disk`; its UID. */
  async function boot(name: string, disk: string, spec: object): Promise<string> {
    const vmi = { metadata: { name, namespace: 'ci', uid: `vmi-${++uids}` }, spec } as VmiObject;
    await guests.boot(vmi, path.join(dir, disk));
    return vmi.metadata!.uid!;
  }
  const profiled = (): { domain: Record<string, unknown>; networks: unknown[] } => {
    const parts = profileVmiSpec(CRC_KUBEVIRT_V1);
    return { ...parts, domain: { ...parts.domain, devices: { ...parts.domain.devices, disks } } };
  };
  const disks = [{ name: 'rootdisk', disk: { bus: 'virtio' } }];
  const login = (uid: string): Promise<string> =>
    sshLogin({
      host: guests.address(uid),
      port: guests.guestOf(uid)!.ssh.port,
      username: 'core',
      privateKey: key.private,
    });

  it("comes up on the bundle's VM profile, behind masquerade's 10.0.2.2", async () => {
    const uid = await boot('matching', 'built', profiled());
    expect(guests.notUp(uid)).toBeUndefined();
    await login(uid);
    expect(guests.guestOf(uid)!.machine.guestIp).toBe('10.0.2.2');
  });

  it('does not boot on another firmware: the domain runs, nothing answers', async () => {
    const spec = profiled();
    spec.domain.firmware = { bootloader: { efi: { secureBoot: false } } };
    const uid = await boot('efi', 'built', spec);
    expect(guests.notUp(uid)).toBe(
      'no bootable device: the disk was installed on bios, masquerade on pod, the VMI is efi, masquerade on pod',
    );
    expect(guests.guestOf(uid)).toBeUndefined();
    expect(guests.guestAt(guests.address(uid))).toBeUndefined();
  });

  it("boots behind KubeVirt's default bridge binding, but its cluster never gets ready", async () => {
    // Today's VM without a profile: no interfaces, so the pod network with the default binding.
    const uid = await boot('bridged', 'built', { domain: { devices: { disks } } });
    expect(guests.notUp(uid)).toBe(
      'cluster never ready: the disk was installed on bios, masquerade on pod, the VMI is bios, bridge on pod',
    );
    await login(uid);
    expect(await readyz(guests.guestOf(uid)!)).toBe(503);
  });

  it('boots a disk without the record (a downloaded bundle) on any VMI, as before', async () => {
    const uid = await boot('downloaded', 'downloaded', { domain: { devices: { disks } } });
    expect(guests.notUp(uid)).toBeUndefined();
    await login(uid);
    expect(guests.guestOf(uid)!.machine.guestIp).toBe('10.0.2.15');
  });
});

/** The guest API's /readyz status as the bundle's admin, at the guest's own front door. */
function readyz(guest: SimulatedCrcGuest): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      {
        host: guest.address,
        port: guest.front!.port,
        path: '/readyz',
        ca: guest.pki.serverCa.certificatePem,
        cert: guest.pki.admin.certificatePem,
        key: guest.pki.admin.keyPem,
        servername: 'api.crc.testing',
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
  });
}

describe('crc-agent bundle-build as the Job runs it', () => {
  it('runs a step from the built agent, finds the guest scripts from dist/, and leaves its result', async () => {
    const bench = await BuildBench.create();
    try {
      await bench.installedDisk('process');
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
