/**
 * The server name (SNI) of a TLS ClientHello, read from the first bytes of a connection the way a
 * passthrough router reads it: `undefined` while more bytes are needed, `null` when the bytes are
 * not a ClientHello or carry no server name.
 */
export function readServerName(data: Buffer): string | null | undefined {
  if (data.length < 5) return undefined;
  if (data[0] !== 0x16) return null; // not a handshake record
  const recordEnd = 5 + data.readUInt16BE(3);
  if (data.length < recordEnd) return undefined;
  if (data[5] !== 0x01) return null; // not a ClientHello
  let at = 5 + 4 + 2 + 32; // handshake header, client version, random
  const skip = (lengthBytes: 1 | 2): void => {
    const length = lengthBytes === 1 ? data[at]! : data.readUInt16BE(at);
    at += lengthBytes + length;
  };
  skip(1); // session id
  skip(2); // cipher suites
  skip(1); // compression methods
  if (at + 2 > recordEnd) return null;
  const extensionsEnd = at + 2 + data.readUInt16BE(at);
  at += 2;
  while (at + 4 <= Math.min(extensionsEnd, recordEnd)) {
    const type = data.readUInt16BE(at);
    const length = data.readUInt16BE(at + 2);
    if (type === 0) {
      // server_name: list length (2), name type (1, 0 = host_name), name length (2), name.
      const nameLength = data.readUInt16BE(at + 7);
      return data.toString('ascii', at + 9, at + 9 + nameLength);
    }
    at += 4 + length;
  }
  return null;
}
