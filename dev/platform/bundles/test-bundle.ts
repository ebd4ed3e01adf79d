import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import ssh2 from 'ssh2';
import tar from 'tar-stream';
import { runCommand } from '../../control-plane/run-command.js';
import { QEMU_IMG, requireTools } from '../../control-plane/required-tools.js';
import { embedAuthorizedKeys } from '../disks/simulated-disk.js';

/** A disk of 16 MiB: qemu-img's smallest sizes are awkward, and this converts in milliseconds. */
export const TEST_DISK_BYTES = 16 * 1024 * 1024;

/** Offsets at which the raw disk holds random marker bytes, so content checks mean something. */
export const MARKER_OFFSETS = [0, 1024 * 1024, TEST_DISK_BYTES - 4096] as const;

export interface TestBundle {
  /** `crc_libvirt_<version>_amd64.crcbundle`. */
  fileName: string;
  /** The archive's top-level folder. */
  bundleDir: string;
  archivePath: string;
  archiveSha256: string;
  /** The raw disk that crc.qcow2 was made from, and its digest. */
  rawDisk: Buffer;
  rawSha256: string;
  sshPrivateKey: string;
  /** Its authorized_keys line, which the raw disk carries (a guest booted from it accepts the key). */
  sshPublicKey: string;
  ocpVersion: string;
}

export interface TestBundleOptions {
  version?: string;
  ocpVersion?: string;
  /** Members to leave out of the archive. */
  omit?: ('crc.qcow2' | 'id_ecdsa_crc' | 'crc-bundle-info.json')[];
}

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * A raw image with random markers and the `core` user's authorized_keys (as the simulated
 * platform reads them from a disk), converted to qcow2 by qemu-img.
 */
async function makeQcow2(
  workDir: string,
  authorizedKeys: string,
): Promise<{ qcow2: Buffer; raw: Buffer }> {
  const raw = Buffer.alloc(TEST_DISK_BYTES);
  for (const offset of MARKER_OFFSETS) randomBytes(4096).copy(raw, offset);
  embedAuthorizedKeys(raw, authorizedKeys);
  const rawPath = path.join(workDir, 'disk.raw');
  const qcow2Path = path.join(workDir, 'crc.qcow2');
  await writeFile(rawPath, raw);
  await requireTools([QEMU_IMG]);
  await runCommand('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', rawPath, qcow2Path]);
  return { qcow2: await readFile(qcow2Path), raw };
}

/**
 * Writes a CRC bundle into `dir`: a zstd-compressed tar whose top-level folder is named like the
 * file, holding crc.qcow2, id_ecdsa_crc, crc-bundle-info.json and a few members bundle-prep must
 * skip, as the published bundles do.
 */
export async function makeTestBundle(
  dir: string,
  options: TestBundleOptions = {},
): Promise<TestBundle> {
  const version = options.version ?? '4.16.0';
  const ocpVersion = options.ocpVersion ?? version;
  const bundleDir = `crc_libvirt_${version}_amd64`;
  const fileName = `${bundleDir}.crcbundle`;
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'test-bundle-'));
  try {
    const sshKey = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    const { qcow2, raw } = await makeQcow2(workDir, sshKey.public);
    const info = JSON.stringify({
      version: '1.4',
      type: 'snc',
      name: bundleDir,
      clusterInfo: { openshiftVersion: ocpVersion, clusterName: 'crc', baseDomain: 'testing' },
    });
    const members: [string, Buffer | string][] = [
      ['crc.qcow2', qcow2],
      ['id_ecdsa_crc', sshKey.private],
      ['crc-bundle-info.json', info],
    ];
    const pack = tar.pack();
    const archivePath = path.join(dir, fileName);
    const written = pipeline(
      Readable.from(pack),
      zlib.createZstdCompress(),
      createWriteStream(archivePath),
    );
    pack.entry({ name: `${bundleDir}/`, type: 'directory' });
    pack.entry({ name: `${bundleDir}/kubeconfig` }, 'apiVersion: v1\nkind: Config\n');
    for (const [name, content] of members)
      if (!options.omit?.includes(name as never))
        pack.entry({ name: `${bundleDir}/${name}` }, content);
    pack.entry({ name: `${bundleDir}/oc` }, randomBytes(8192));
    pack.finalize();
    await written;
    return {
      fileName,
      bundleDir,
      archivePath,
      archiveSha256: sha256(await readFile(archivePath)),
      rawDisk: raw,
      rawSha256: sha256(raw),
      sshPrivateKey: sshKey.private,
      sshPublicKey: sshKey.public,
      ocpVersion,
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Writes a `sha256sum` listing (`<hex>  <name>` lines) named `name` into `dir`. */
export async function writeChecksumFile(
  dir: string,
  name: string,
  entries: Record<string, string>,
): Promise<void> {
  const lines = Object.entries(entries).map(([file, digest]) => `${digest}  ${file}\n`);
  await writeFile(path.join(dir, name), lines.join(''));
}

/** An index page of a folder's entries, folders with a trailing `/`. */
function listFolder(folder: string, res: http.ServerResponse): void {
  readdir(folder, { withFileTypes: true }).then(
    (entries) => {
      const links = entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort()
        .map((href) => `<a href="${encodeURI(href)}">${href}</a>`);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><body><pre>\n${links.join('\n')}\n</pre></body></html>\n`);
    },
    () => res.writeHead(404).end(),
  );
}

export interface FileServer {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Every path requested so far. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the files of `dir` and its subfolders over HTTP on 127.0.0.1, and for a folder's path
 * (ending in `/`) an index page linking its entries, as a web server's directory listing does
 * (the CRC mirror's version list); anything else is 404.
 */
export async function serveFolder(dir: string): Promise<FileServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
    requests.push(`/${name}`);
    const folder = name === '' || name.endsWith('/');
    const segments = name.split('/').slice(0, folder ? -1 : undefined);
    if (segments.some((segment) => !segment || segment === '.' || segment === '..')) {
      res.writeHead(404).end();
      return;
    }
    if (folder) return void listFolder(path.join(dir, name), res);
    const file = path.join(dir, name);
    stat(file).then(
      (stats) => {
        if (!stats.isFile()) return void res.writeHead(404).end();
        const size = stats.size;
        res.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': String(size),
        });
        createReadStream(file).pipe(res);
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
