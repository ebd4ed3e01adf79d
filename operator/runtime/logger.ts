import type { Logger } from 'pino';
import { pino } from 'pino';

export type { Logger };
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Structured JSON logs on stdout. Controllers log through children that carry `controller` and
 * the object `key` on every line. Messages follow Kubernetes style: capitalised, past tense, the
 * kind named ("Created Secret").
 */
export function createLogger(
  level: LogLevel = 'info',
  destination?: NodeJS.WritableStream,
): Logger {
  return pino(
    {
      level,
      base: { component: 'guestcluster-operator' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? process.stdout,
  );
}
