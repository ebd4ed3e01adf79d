/**
 * The V8 settings the operator process runs with: its Deployment sets them as NODE_OPTIONS, and so
 * does everything else that starts it (docs/operations/memory.md#what-changed-and-why).
 * - 8 MB semi-spaces: under the allocation bursts of a reconcile storm, Node 24 grows the young
 *   generation to 128 MB and keeps it committed.
 * - An old generation of at most 256 MB, half the Deployment's memory limit: heap pages V8 frees
 *   stay resident (it pools them for reuse), so the process keeps the largest heap it ever had.
 *   Without a limit set here, V8 sizes the heap from the machine's memory (4 GB on a 24 GB host),
 *   lets it grow to 4 times what survives a collection, and the operator kept 340–420 MB after
 *   reconciling 20,000 objects (`npm run bench`, operator memory). With it, collections come
 *   sooner and the heap stays near its live 80 MB; raise it with the memory limit (ADR 0056).
 */
export const OPERATOR_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=256';
