import ssh2 from 'ssh2';
import { hostKeyLine } from '../../crc-agent/host-key.js';

/**
 * Logs in to an SSH server as a client would and logs out again; resolves with the server's host
 * key (`<type> <base64>`), rejects with ssh2's reason when the login is refused.
 */
export function sshLogin(options: {
  host: string;
  port: number;
  username: string;
  privateKey: string;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = new ssh2.Client();
    let hostKey = '';
    client.once('ready', () => {
      client.end();
      resolve(hostKey);
    });
    client.once('error', (error) => {
      client.end();
      reject(error);
    });
    client.connect({
      ...options,
      readyTimeout: 10_000,
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        hostKey = hostKeyLine(key);
        return true;
      },
    });
  });
}
