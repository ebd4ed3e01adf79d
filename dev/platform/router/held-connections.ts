import { EventEmitter } from 'node:events';
import type net from 'node:net';

/** A connection the router took and never answers: what a client of a hung guest sees. */
export interface HeldConnection {
  /** The Route it was meant for: its namespace and name. */
  namespace: string;
  route: string;
  /** Until the client gives up (or the router stops). */
  open: boolean;
  closed: Promise<void>;
}

/**
 * The connections the simulated router holds for the hung guests of failure tests: accepted,
 * TLS ClientHello read, and then nothing, until the client closes them. Tests wait for one to
 * know that a client is waiting on the guest right now.
 */
export class HeldConnections {
  private readonly emitter = new EventEmitter();
  private readonly sockets = new Set<net.Socket>();
  readonly all: HeldConnection[] = [];

  hold(namespace: string, route: string, socket: net.Socket): void {
    let close: () => void = () => undefined;
    const held: HeldConnection = {
      namespace,
      route,
      open: true,
      closed: new Promise((resolve) => (close = resolve)),
    };
    this.sockets.add(socket);
    const ended = (): void => {
      this.sockets.delete(socket);
      held.open = false;
      close();
    };
    // The client's FIN is read only from a flowing socket: what it sends is dropped.
    socket.on('end', ended);
    socket.on('close', ended);
    socket.resume();
    this.all.push(held);
    this.emitter.emit('held', held);
  }

  /** Closes every connection held: their clients see the guest go away. */
  release(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** The next connection held for a Route of this name, within `timeoutMs`. */
  next(route: string, timeoutMs: number): Promise<HeldConnection> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.emitter.off('held', onHeld);
        reject(new Error(`no connection to Route ${route} was held within ${timeoutMs / 1000}s`));
      }, timeoutMs);
      const onHeld = (held: HeldConnection): void => {
        if (held.route !== route) return;
        clearTimeout(timer);
        this.emitter.off('held', onHeld);
        resolve(held);
      };
      this.emitter.on('held', onHeld);
    });
  }
}
