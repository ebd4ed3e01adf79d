/**
 * The V8 settings the operator process runs with: its Deployment sets them as NODE_OPTIONS, and so
 * does everything else that starts it. Under the allocation bursts of a reconcile storm, Node 24
 * grows the young generation to 128 MB and keeps it committed; 16 MB semi-spaces halve the
 * operator's resident memory after reconciling thousands of objects, for a few more scavenges
 * (`npm run bench`, operator memory).
 */
export const OPERATOR_NODE_OPTIONS = '--max-semi-space-size=16';
