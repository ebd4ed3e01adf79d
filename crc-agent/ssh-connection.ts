import type { Duplex, Readable, Writable } from 'node:stream';
import ssh2 from 'ssh2';
import type { Client, ClientChannel } from 'ssh2';
import { CancelledError } from './errors.js';

/** Decides whether a host key is accepted (HostKeyPolicy; the build guests accept any). */
export interface HostKeyVerifier {
  verify(blob: Buffer): boolean;
}

export interface SshConnectOptions {
  host: string;
  port: number;
  username: string;
  /** OpenSSH or PEM private key text. */
  privateKey: string;
  timeoutMs: number;
  /** Closes the connection when it fires, so blocked commands and tunnels return. */
  signal: AbortSignal;
  /** Which host key is accepted: the recorded one, else the first one met (then kept). */
  hostKeys: HostKeyVerifier;
}

/** What a command gets on stdin and where its stdout goes (build mode: scripts, tar streams). */
export interface ExecStreams {
  /** Written to the command's stdin, which is then closed. */
  input?: Buffer | string | Readable;
  /** Receives stdout instead of the collected output (stderr is still collected). */
  stdout?: Writable;
}

export interface CommandResult {
  exitCode: number;
  /** stdout and stderr together, in arrival order. */
  output: string;
}

/** One SSH client connection: public-key authentication only, the host key of the policy. */
export class SshConnection {
  private closed = false;
  private readonly onAbort = (): void => this.close();

  private constructor(
    private readonly client: Client,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', this.onAbort, { once: true });
    client.on('close', () => {
      this.closed = true;
    });
  }

  static connect(options: SshConnectOptions): Promise<SshConnection> {
    return new Promise((resolve, reject) => {
      if (options.signal.aborted) {
        reject(new CancelledError(options.signal.reason));
        return;
      }
      const client = new ssh2.Client();
      const onAbort = (): void => {
        client.end();
        reject(new CancelledError(options.signal.reason));
      };
      options.signal.addEventListener('abort', onAbort, { once: true });
      client.once('ready', () => {
        options.signal.removeEventListener('abort', onAbort);
        // Commands are small request/response exchanges: no Nagle delay on them.
        client.setNoDelay(true);
        resolve(new SshConnection(client, options.signal));
      });
      // Every error, not the first only: a socket reset mid-handshake can be followed by a write
      // that fails on it (EPIPE), and an error nobody listens to would end the process.
      client.on('error', (error) => {
        options.signal.removeEventListener('abort', onAbort);
        // Saying goodbye on a socket that was reset fails in turn; the connection is gone anyway.
        try {
          client.end();
        } catch {
          // Nothing left to close.
        }
        reject(error);
      });
      // A guest going down during the handshake closes the socket without an error.
      client.once('close', () => {
        options.signal.removeEventListener('abort', onAbort);
        reject(new Error('the guest closed the connection during the SSH handshake'));
      });
      client.connect({
        host: options.host,
        port: options.port,
        username: options.username,
        privateKey: options.privateKey,
        readyTimeout: options.timeoutMs,
        // CRC bundles have no known host key: the first one met is recorded and then held to.
        hostVerifier: (key: Buffer) => options.hostKeys.verify(key),
        // Public key only: no password, no keyboard-interactive.
        tryKeyboard: false,
      });
    });
  }

  /**
   * Runs one command in its own exec session (no PTY) and collects its output; with `streams`,
   * feeds its stdin and sends its stdout elsewhere.
   */
  exec(command: string, streams: ExecStreams = {}): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(this.closedError());
        return;
      }
      this.client.exec(command, (error, stream) => {
        if (error) {
          reject(error);
          return;
        }
        collect(stream, streams.stdout, resolve, () => reject(this.closedError()));
        const { input } = streams;
        if (input === undefined) return;
        if (typeof input === 'string' || Buffer.isBuffer(input)) stream.end(input);
        else input.pipe(stream);
      });
    });
  }

  /** Opens a direct-tcpip channel to host:port as resolved by the guest's sshd. */
  forwardOut(host: string, port: number): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(this.closedError());
        return;
      }
      this.client.forwardOut('127.0.0.1', 0, host, port, (error, stream) => {
        if (error)
          reject(new Error(`the guest refused a tunnel to ${host}:${port}: ${error.message}`));
        else resolve(stream);
      });
    });
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.closed) return;
    this.closed = true;
    this.client.end();
  }

  private closedError(): Error {
    return this.signal.aborted
      ? new CancelledError(this.signal.reason)
      : new Error('the SSH connection to the guest was closed');
  }
}

function collect(
  stream: ClientChannel,
  stdout: Writable | undefined,
  resolve: (result: CommandResult) => void,
  onLost: () => void,
): void {
  const chunks: Buffer[] = [];
  let exitCode: number | undefined;
  if (stdout) stream.pipe(stdout);
  else stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('exit', (code: number | null) => {
    exitCode = code ?? 255;
  });
  stream.on('close', () => {
    // No exit status: the connection went away under the command.
    if (exitCode === undefined) onLost();
    else resolve({ exitCode, output: Buffer.concat(chunks).toString('utf8') });
  });
}
