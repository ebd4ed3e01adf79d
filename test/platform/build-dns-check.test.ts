import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BuildBench } from './build-steps.js';

/**
 * A DNS server of the build's zones (what the build-dns CoreDNS serves), enough for
 * A queries: api-int and the apps wildcard to the node IP, other names from `external`.
 */
function zoneServer(external: Record<string, string>, nodeIp = '192.168.126.11'): dgram.Socket {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset]! > 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString());
      offset += query[offset]! + 1;
    }
    const name = labels.join('.').toLowerCase();
    const question = query.subarray(12, offset + 5);
    const ip =
      name === 'api-int.crc.testing' || name.endsWith('.apps-crc.testing')
        ? nodeIp
        : external[name];
    const header = Buffer.from(query.subarray(0, 12));
    header.writeUInt16BE(ip ? 0x8180 : 0x8183, 2); // a response; NXDOMAIN without an address
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(ip ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    const answer = ip
      ? Buffer.concat([
          Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4]),
          Buffer.from(ip.split('.').map(Number)),
        ])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  return socket;
}

describe('the dns-check step', () => {
  let bench: BuildBench;
  const servers: dgram.Socket[] = [];
  beforeAll(async () => {
    bench = await BuildBench.create();
  });
  afterAll(async () => {
    for (const server of servers) server.close();
    await bench.stop();
  });

  async function serve(external: Record<string, string>, nodeIp?: string): Promise<string> {
    const server = zoneServer(external, nodeIp);
    servers.push(server);
    await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
    return String(server.address().port);
  }

  it('passes when the build DNS answers api-int, an apps name and an external name', async () => {
    const port = await serve({ 'quay.io': '203.0.113.7' });
    const result = await bench.step('dns-check', undefined, {
      BUILD_DNS_IP: '127.0.0.1',
      BUILD_DNS_PORT: port,
    });
    expect(result).toEqual({
      step: 'dns-check',
      ok: true,
      outputs: {
        answered:
          'api-int.crc.testing=192.168.126.11,*.apps-crc.testing=192.168.126.11,quay.io=203.0.113.7',
      },
    });
  });

  it('fails naming the name it could not resolve, or the wrong answer', async () => {
    const noUpstream = await serve({});
    const external = await bench.step('dns-check', undefined, {
      BUILD_DNS_IP: '127.0.0.1',
      BUILD_DNS_PORT: noUpstream,
    });
    expect(external).toMatchObject({
      ok: false,
      reason: 'DNSCheckFailed',
      message: expect.stringContaining('no address for quay.io'),
    });
    const wrong = await serve({ 'quay.io': '203.0.113.7' }, '10.0.2.2');
    const zone = await bench.step('dns-check', undefined, {
      BUILD_DNS_IP: '127.0.0.1',
      BUILD_DNS_PORT: wrong,
    });
    expect(zone).toMatchObject({
      ok: false,
      reason: 'DNSCheckFailed',
      message: expect.stringContaining(
        'answers api-int.crc.testing with 10.0.2.2, not 192.168.126.11',
      ),
    });
  });
});
