import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { GuestApiServer } from '../../dev/guest/guest-api.js';
import type { HostedGuestApi } from '../../dev/platform/hypershift/simulated-hosted-guest.js';
import { SimulatedHostedGuest } from '../../dev/platform/hypershift/simulated-hosted-guest.js';

/** Booting a guest control plane under a loaded suite; its own start waits at most 120 s. */
const BOOT_TIMEOUT_MS = 180_000;
const REQUEST_PATH = '/hosted-guest';

type Booted = { api: GuestApiServer; shared: HostedGuestApi };

/**
 * One hosted guest API for the whole test run instead of one control plane per hcp file: the
 * run's global set-up process boots it when the first file asks (a run without hcp files boots
 * none) and stops it at the end; each file's platform attaches a front door of its own
 * (SimulatedHostedGuest.attach). Hosted clusters of different files differ in their API host
 * names, which is all the guest keeps apart per cluster. Files ask over a Unix socket in a folder
 * only the run's user may enter: the answer holds the guest's admin credentials.
 */
export class HostedGuestBroker {
  private booted: Promise<Booted> | undefined;

  private constructor(
    private readonly server: http.Server,
    private readonly dir: string,
    readonly socketPath: string,
  ) {
    server.on('request', (req, res) => this.answer(req, res));
  }

  static async start(): Promise<HostedGuestBroker> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-hosted-guest-'));
    const socketPath = path.join(dir, 'broker.sock');
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    return new HostedGuestBroker(server, dir, socketPath);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.url !== REQUEST_PATH) {
      res.writeHead(404).end();
      return;
    }
    this.booted ??= SimulatedHostedGuest.boot();
    this.booted.then(
      ({ shared }) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shared)),
      (error: unknown) => {
        // The next file may try again; this one fails with the cause.
        this.booted = undefined;
        res.writeHead(500).end(`the shared hosted guest did not boot: ${String(error)}`);
      },
    );
  }

  /** Stops the guest API, if one was booted, and the broker. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    const booted = await this.booted?.catch(() => undefined);
    await booted?.api.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** Asks the run's broker for its hosted guest API (booted on the first ask). */
function askBroker(socketPath: string): Promise<HostedGuestApi> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { socketPath, path: REQUEST_PATH, signal: AbortSignal.timeout(BOOT_TIMEOUT_MS) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode === 200) resolve(JSON.parse(body) as HostedGuestApi);
          else reject(new Error(body || `the hosted guest broker answered ${response.statusCode}`));
        });
      },
    );
    request.on('error', (error) =>
      reject(
        new Error(`no answer from the hosted guest broker at ${socketPath}: ${error.message}`),
      ),
    );
  });
}

/** A front door of this process to the run's shared hosted guest API. */
export async function attachSharedHostedGuest(socketPath: string): Promise<SimulatedHostedGuest> {
  return SimulatedHostedGuest.attach(await askBroker(socketPath));
}
