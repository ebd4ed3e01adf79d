import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { resolveBinaries } from '../../dev/control-plane/binaries.js';
import { LocalControlPlane, startEtcd } from '../../dev/control-plane/control-plane.js';
import { freePort } from '../../dev/control-plane/free-port.js';
import { cachedCrds } from '../../dev/control-plane/platform-crds/crd-cache.js';
import { KUBEVIRT_CRDS } from '../../dev/control-plane/platform-crds/kubevirt-crds.js';
import { testEnv } from '../support/test-env.js';

const isAlive = (pid: number | undefined): boolean => {
  try {
    process.kill(pid!, 0);
    return true;
  } catch {
    return false;
  }
};

describe('control plane failures', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-failure-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  it('says what to install when there is no Go and no KUBEBUILDER_ASSETS', async () => {
    const saved = {
      PATH: process.env.PATH,
      cache: process.env.GUESTCLUSTER_CACHE_DIR,
      assets: process.env.KUBEBUILDER_ASSETS,
    };
    cleanups.push(() => {
      process.env.PATH = saved.PATH;
      if (saved.cache === undefined) delete process.env.GUESTCLUSTER_CACHE_DIR;
      else process.env.GUESTCLUSTER_CACHE_DIR = saved.cache;
      if (saved.assets !== undefined) process.env.KUBEBUILDER_ASSETS = saved.assets;
      return Promise.resolve();
    });
    process.env.PATH = await tempDir();
    process.env.GUESTCLUSTER_CACHE_DIR = await tempDir();
    delete process.env.KUBEBUILDER_ASSETS;

    await expect(resolveBinaries(() => undefined)).rejects.toThrow(
      /no `go` command on the PATH\. Install Go 1\.26 or newer .* or set KUBEBUILDER_ASSETS/,
    );
  });

  it('says how to do without Go when the platform CRDs cannot be obtained', async () => {
    const saved = process.env.PATH;
    cleanups.push(() => {
      process.env.PATH = saved;
      return Promise.resolve();
    });
    process.env.PATH = await tempDir();

    await expect(cachedCrds(KUBEVIRT_CRDS, { cacheDir: await tempDir() })).rejects.toThrow(
      /^Could not obtain the CRDs of KubeVirt v1\.6\.0 .* without either, set GUESTCLUSTER_PLATFORM_CRDS=stand-ins\.$/,
    );
  });

  it('names etcd, the port clash and its log when its port is taken', async () => {
    const dir = await tempDir();
    // Another program holds the port (and hangs up on anyone who connects).
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => squatter.close(() => resolve())));
    const takenPort = (squatter.address() as net.AddressInfo).port;

    const started = startEtcd(
      testEnv('etcd'),
      dir,
      { clientPort: takenPort, peerPort: await freePort() },
      30_000,
    );

    await expect(started).rejects.toThrow(`etcd failed to start`);
    await expect(started).rejects.toThrow('a port clash');
    await expect(started).rejects.toThrow(`Its log is ${path.join(dir, 'etcd.log')}`);
  });

  it('names the apiserver and its log when it crashes, and stops the rest without leftovers', async () => {
    const plane = await LocalControlPlane.start();
    const pids = plane.pids;
    cleanups.push(() => plane.stop());

    // The controller manager exits as soon as its apiserver is gone, and its exit may be noticed
    // first; killing it a moment before the apiserver makes that order the likely one.
    process.kill(pids['kube-controller-manager']!, 'SIGKILL');
    process.kill(pids['kube-apiserver']!, 'SIGKILL');
    const crashed = await plane.firstExit();
    const failure = await crashed.failure('stopped unexpectedly');

    expect(failure.message).toContain(
      'kube-apiserver stopped unexpectedly: it exited with SIGKILL',
    );
    expect(failure.message).toContain(
      `Its log is ${path.join(plane.stateDir, 'kube-apiserver.log')}`,
    );
    await plane.stop();
    expect(Object.values(pids).filter(isAlive)).toEqual([]);
  });
});
