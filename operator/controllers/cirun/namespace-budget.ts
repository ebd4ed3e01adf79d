/** The window a namespace's request budget counts over: GitHub's rate limit counts per hour too. */
export const BUDGET_WINDOW_MS = 3_600_000;

/**
 * How many requests to GitHub each namespace's leases may cost per window: the credential's rate
 * limit is shared by every tenant, so one namespace's many runs (or many attempts of one run)
 * must not spend it for all (docs/reference/kinds.md#what-a-namespace-may-spend). A window
 * starts at a namespace's first request after the last one ended.
 */
export class NamespaceBudget {
  private readonly windows = new Map<string, { startMs: number; used: number }>();

  constructor(
    readonly perWindow: number,
    private readonly windowMs = BUDGET_WINDOW_MS,
  ) {}

  /** When the namespace may ask again, if its budget is used up now; undefined when it may. */
  exhaustedUntil(namespace: string, now: number): number | undefined {
    const window = this.current(namespace, now);
    return window && window.used >= this.perWindow ? window.startMs + this.windowMs : undefined;
  }

  /** Spends one request of the namespace's budget; false (and nothing spent) when none is left. */
  take(namespace: string, now: number): boolean {
    const window = this.current(namespace, now) ?? { startMs: now, used: 0 };
    if (window.used >= this.perWindow) return false;
    window.used += 1;
    this.windows.set(namespace, window);
    return true;
  }

  /** Forgets the windows that have ended: what is kept is bounded by the namespaces asking now. */
  forgetEnded(now: number): void {
    for (const [namespace, window] of this.windows)
      if (now >= window.startMs + this.windowMs) this.windows.delete(namespace);
  }

  private current(namespace: string, now: number): { startMs: number; used: number } | undefined {
    const window = this.windows.get(namespace);
    return window && now < window.startMs + this.windowMs ? window : undefined;
  }
}
