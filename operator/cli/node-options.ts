/**
 * The V8 settings the operator process runs with: its Deployment sets them as NODE_OPTIONS, and so
 * does everything else that starts it. Under the allocation bursts of a reconcile storm, Node 24
 * grows the young generation to 128 MB and keeps it committed; 8 MB semi-spaces keep the
 * operator's resident memory after reconciling 20,000 objects well below half of that, for more
 * scavenges of short-lived objects (`npm run bench`, operator memory: 267 MB against 270–330 MB
 * with 16 MB).
 */
export const OPERATOR_NODE_OPTIONS = '--max-semi-space-size=8';
