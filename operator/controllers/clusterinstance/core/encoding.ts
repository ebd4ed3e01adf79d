/** Secret data is base64 on the wire. */
export const encodeBase64 = (text: string): string => Buffer.from(text).toString('base64');

/** The text of a Secret data value; empty when it is missing. */
export const decodeBase64 = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString('utf8');
