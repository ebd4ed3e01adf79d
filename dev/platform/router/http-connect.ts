const CONNECT = Buffer.from('CONNECT ');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * An HTTP CONNECT request at the start of a connection, as an HTTPS proxy reads it: `undefined`
 * while more bytes are needed, `null` when the connection does not start with CONNECT, else the
 * requested authority and the bytes after the request (the start of the tunnelled stream).
 */
export function readConnectRequest(
  data: Buffer,
): { authority: string; rest: Buffer } | null | undefined {
  const start = data.subarray(0, CONNECT.length);
  if (!CONNECT.subarray(0, start.length).equals(start)) return null;
  const end = data.indexOf(HEADER_END);
  if (end < 0) return undefined;
  const requestLine = data.toString('latin1', 0, data.indexOf('\r\n'));
  return {
    authority: requestLine.split(' ')[1] ?? '',
    rest: data.subarray(end + HEADER_END.length),
  };
}
