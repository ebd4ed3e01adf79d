// Benchmarks share one control plane and run one at a time. Jest's own order starts with the
// slowest file, the memory benchmark, whose 20,000 objects keep the apiserver and etcd busy
// (deleting, compacting) while the next file measures latency. This order, by file name with the
// memory benchmarks after every other, puts them last. Jest asks a sequencer only for sort and
// cacheResults here (no sharding, no --onlyFailures).

const memoryLast = (test) => (test.path.includes('operator-memory') ? 1 : 0);

export default class BenchOrder {
  sort(tests) {
    return [...tests].sort((a, b) => memoryLast(a) - memoryLast(b) || a.path.localeCompare(b.path));
  }

  cacheResults() {}
}
