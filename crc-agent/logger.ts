import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stdout, written synchronously so nothing is lost when the process exits.
 * Nothing secret is ever passed to the logger: messages carry names and paths, never values.
 */
export function createLogger(destination: NodeJS.WritableStream | number = 1): Logger {
  const stream =
    typeof destination === 'number'
      ? pino.destination({ fd: destination, sync: true })
      : destination;
  return pino(
    {
      base: { component: 'crc-agent' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
}
