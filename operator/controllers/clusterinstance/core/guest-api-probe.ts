import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { GuestConnection } from '../../guesthealth/guest-connection.js';

/** Where to connect for a host and port; production connects to the name itself (DNS). */
export type ConnectAddress = (host: string, port: number) => { host: string; port: number };

/**
 * Checks a guest API with what the operator holds for it: never a kubeconfig as read from a
 * Secret, so no field of one can make it read a file, run a program or pick a proxy.
 */
export type GuestApiProbe = (access: GuestAccess) => Promise<void>;

/**
 * The guest API readiness check (docs/reference/instances.md#common-steps): GET <server>/readyz
 * with the instance's credential and CA (guest-connection.ts: 10 s timeouts, the egress proxy of
 * HTTPS_PROXY unless NO_PROXY exempts the host); resolves on 2xx, rejects with the reason
 * otherwise. `connectAddress` lets a caller choose the address without changing the name TLS
 * verifies (like an /etc/hosts entry).
 */
export function guestApiProbe(connectAddress?: ConnectAddress): GuestApiProbe {
  return async (access) => {
    const connection = new GuestConnection(access, connectAddress);
    let status: number;
    try {
      status = (await connection.get('/readyz')).status;
    } finally {
      await connection.close();
    }
    if (status < 200 || status >= 300) throw new Error(`guest API returned ${status}`);
  };
}
