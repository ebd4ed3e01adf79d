/**
 * How a front end of the lease client reports: the Action writes to the job's log, the CLI and
 * `guestcluster local lease` to a terminal. The client decides what is said; the front end only
 * how it is shown.
 */
export interface LeaseUi {
  /** A progress line. */
  info(line: string): void;
  /** Something the person should act on; the work goes on. */
  warning(line: string): void;
  /** A titled part of the work: the Action's log groups; a terminal may print the title or not. */
  group<T>(title: string, work: () => Promise<T>): Promise<T>;
  /** A value that must never be shown (a kubeconfig, a credential in it): the Action masks it. */
  secret(value: string): void;
}

/** An error's message, with its cause's (what fetch's "fetch failed" leaves out: "other side closed"). */
export const errorMessage = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
};
