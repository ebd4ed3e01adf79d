import net from 'node:net';
import type { AddressInfo } from 'node:net';
import ssh2 from 'ssh2';
import type { Connection, ParsedKey, PublicKeyAuthContext, ServerChannel } from 'ssh2';
import type { CommandOutcome } from './guest-machine.js';
import { generateEd25519KeyPair, publicKeyLine } from '../../crc-agent/ssh-key.js';

const { Server, utils } = ssh2;

/** What the guest's sshd serves: a CRC guest (GuestMachine) or a build guest. */
export interface SshMachine {
  /** The core user's authorized_keys as they are right now. */
  authorizedKeys(): string;
  /** Runs one exec session's command, with what the client sent on stdin when it reads any. */
  run(command: string, input?: Buffer): Promise<CommandOutcome>;
  /** Whether the command reads stdin to its end before it runs (the client closes it). */
  readsInput?(command: string): boolean;
  /** Whether sshd resolves api.crc.testing to the guest (the API tunnel). */
  resolvesApiHost(): boolean;
  readonly guestIp: string;
}

/** The keys in the guest's authorized_keys, as the file holds them right now. */
function authorizedKeys(machine: SshMachine): ParsedKey[] {
  return machine
    .authorizedKeys()
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => utils.parseKey(line))
    .filter((key): key is ParsedKey => !(key instanceof Error) && !Array.isArray(key));
}

function authenticate(machine: SshMachine, ctx: PublicKeyAuthContext): boolean {
  if (ctx.username !== 'core') return false;
  const key = authorizedKeys(machine).find((k) => k.getPublicSSH().equals(ctx.key.data));
  if (!key) return false;
  // Without a signature the client only asks whether the key would do; with one it proves it.
  return !ctx.signature || key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true;
}

function runExec(machine: SshMachine, channel: ServerChannel, command: string): void {
  if (!machine.readsInput?.(command)) {
    execute(machine, channel, command, undefined);
    return;
  }
  const chunks: Buffer[] = [];
  channel.on('data', (chunk: Buffer) => chunks.push(chunk));
  channel.once('end', () => execute(machine, channel, command, Buffer.concat(chunks)));
}

function execute(
  machine: SshMachine,
  channel: ServerChannel,
  command: string,
  input: Buffer | undefined,
): void {
  machine.run(command, input).then(
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
    machine: SshMachine,
    apiPort: () => number | undefined,
    host = '127.0.0.1',
    port = 0,
    /** The host's private key; a new one by default (a CRC guest's keys are made at boot). */
    hostKey = generateEd25519KeyPair().private,
  ): Promise<GuestSshServer> {
    const clients = new Set<Connection>();
    const server = GuestSshServer.serve(machine, apiPort, host, hostKey, clients);
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    const address = server.address() as AddressInfo;
    return new GuestSshServer(server, address.port, clients, publicKeyLine(hostKey));
  }

  /**
   * An sshd that listens on no port of its own: it serves the connections it is handed
   * (`accept`) on `host`:`port`, a port its caller keeps bound across the guest's reboots.
   */
  static forSockets(
    machine: SshMachine,
    apiPort: () => number | undefined,
    host: string,
    port: number,
    hostKey: string,
  ): GuestSshServer {
    const clients = new Set<Connection>();
    const server = GuestSshServer.serve(machine, apiPort, host, hostKey, clients);
    return new GuestSshServer(server, port, clients, publicKeyLine(hostKey));
  }

  /** Serves one connection handed over by the owner of the port. */
  accept(socket: net.Socket): void {
    (this.server as unknown as { injectSocket(socket: net.Socket): void }).injectSocket(socket);
  }

  private static serve(
    machine: SshMachine,
    apiPort: () => number | undefined,
    host: string,
    hostKey: string,
    clients: Set<Connection>,
  ): InstanceType<typeof Server> {
    const server = new Server({ hostKeys: [hostKey] }, (client) => {
      clients.add(client);
      // Small request/response exchanges: no Nagle delay (the agent's client does the same).
      (client as unknown as { setNoDelay(on: boolean): void }).setNoDelay(true);
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
    return server;
  }

  async stop(): Promise<void> {
    for (const client of this.clients) client.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * What a guest going down does to sshd: the port closes at once and every connection drops,
   * also one still in its handshake (which end() would leave open). Resolves once the port is
   * free, so sshd can come back on it.
   */
  async kill(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const client of this.clients) {
      client.end();
      (client as unknown as { _sock?: { destroy(): void } })._sock?.destroy();
    }
    await closed;
  }
}
