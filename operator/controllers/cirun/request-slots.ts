/**
 * At most `max` requests to GitHub at once, off the controller's workers, so that a slow answer
 * holds back neither reconciles nor other runs; when all slots are taken, the namespaces waiting
 * take turns (one request each, round robin), so that one namespace's many slow runs cannot
 * hold the slots for everyone. What waits is bounded by the runs each namespace may ask about.
 */
export class RequestSlots {
  private running = 0;
  /** The waiting requests by namespace, in turn order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly max: number) {}

  async run<T>(namespace: string, request: () => Promise<T>): Promise<T> {
    await this.acquire(namespace);
    try {
      return await request();
    } finally {
      this.release();
    }
  }

  private acquire(namespace: string): Promise<void> {
    if (this.running < this.max) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(namespace) ?? [];
      queue.push(resolve);
      this.waiting.set(namespace, queue);
    });
  }

  /** Hands the slot to the next namespace in turn, which then goes to the back of the line. */
  private release(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.running -= 1;
      return;
    }
    const [namespace, queue] = next.value;
    const resolve = queue.shift()!;
    this.waiting.delete(namespace);
    if (queue.length > 0) this.waiting.set(namespace, queue);
    resolve();
  }
}
