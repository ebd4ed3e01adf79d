/** Events of the simulated week in time order (a binary heap; ties in the order they were added). */
export class EventQueue<T> {
  private readonly heap: { at: number; seq: number; event: T }[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, event: T): void {
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, event });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  pop(): { at: number; event: T } | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (!top || !last || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let best = i;
      if (l < heap.length && this.before(l, best)) best = l;
      if (r < heap.length && this.before(r, best)) best = r;
      if (best === i) return top;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}
