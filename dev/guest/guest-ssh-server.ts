import net from 'node:net';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import type { Connection, ParsedKey, PublicKeyAuthContext, ServerChannel } from 'ssh2';
import type { GuestMachine } from './guest-machine.js';
import { AUTHORIZED_KEYS } from './guest-machine.js';
import { generateEd25519KeyPair, publicKeyLine } from '../../crc-agent/ssh-key.js';

const { Server, utils } = ssh2;

/** The keys in the guest's authorized_keys, as the file holds them right now. */
function authorizedKeys(machine: GuestMachine): ParsedKey[] {
  return (machine.files.get(AUTHORIZED_KEYS) ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => utils.parseKey(line))
    .filter((key): key is ParsedKey => !(key instanceof Error) && !Array.isArray(key));
}

function authenticate(machine: GuestMachine, ctx: PublicKeyAuthContext): boolean {
  if (ctx.username !== 'core') return false;
  const key = authorizedKeys(machine).find((k) => k.getPublicSSH().equals(ctx.key.data));
  if (!key) return false;
  // Without a signature the client only asks whether the key would do; with one it proves it.
  return !ctx.signature || key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true;
}

function runExec(machine: GuestMachine, channel: ServerChannel, command: string): void {
  machine.run(command).then(
    (outcome) => {
      if (outcome.stdout) channel.write(outcome.stdout);
      if (outcome.stderr) channel.stderr.write(outcome.stderr);
      channel.exit(outcome.exitCode);
      channel.end();
    },
    (error: unknown) => {
      channel.stderr.write(`${String(error)}\n`);
      channel.exit(1);
      channel.end();
    },
  );
}

/**
 * The guest's sshd: public-key login as `core` with any key in authorized_keys (read at each
 * login, so an appended key works at once), exec sessions run by the GuestMachine, and
 * direct-tcpip channels to api.crc.testing:6443 once guest DNS resolves that name.
 */
export class GuestSshServer {
  private constructor(
    private readonly server: InstanceType<typeof Server>,
    readonly port: number,
    private readonly clients: Set<Connection>,
    /** Its host key, as a client sees it (`<type> <base64>`). */
    readonly hostKey: string,
  ) {}

  /** `port` 0 takes a free one; a new host key is made each time it starts. */
  static async start(
    machine: GuestMachine,
    apiPort: () => number | undefined,
    host = '127.0.0.1',
    port = 0,
  ): Promise<GuestSshServer> {
    const hostKey = generateEd25519KeyPair().private;
    const clients = new Set<Connection>();
    const server = new Server({ hostKeys: [hostKey] }, (client) => {
      clients.add(client);
      client.on('close', () => clients.delete(client));
      client.on('error', () => undefined);
      client.on('authentication', (ctx) => {
        if (ctx.method === 'publickey' && authenticate(machine, ctx)) ctx.accept();
        else ctx.reject(['publickey']);
      });
      client.on('ready', () => {
        client.on('session', (accept) => {
          accept().on('exec', (acceptExec, _reject, info) =>
            runExec(machine, acceptExec(), info.command),
          );
        });
        client.on('tcpip', (accept, reject, info) => {
          const port = apiPort();
          const toApi =
            (info.destIP === 'api.crc.testing' || info.destIP === machine.guestIp) &&
            info.destPort === 6443;
          if (!toApi || port === undefined || !machine.resolvesApiHost()) {
            reject();
            return;
          }
          // The guest's API listens on the guest's own address, as sshd's does.
          const upstream = net.connect({ host, port });
          upstream.once('connect', () => {
            const channel = accept();
            channel.pipe(upstream).pipe(channel);
            channel.on('error', () => upstream.destroy());
          });
          upstream.once('error', () => reject());
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    const address = server.address() as AddressInfo;
    return new GuestSshServer(server, address.port, clients, publicKeyLine(hostKey));
  }

  async stop(): Promise<void> {
    for (const client of this.clients) client.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
