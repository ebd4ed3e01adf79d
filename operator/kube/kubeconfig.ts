// Moved to the shared client layer (client/kube/kubeconfig.ts); kept here so that the operator's
// imports stay as they are until they are moved over.
export * from '../../client/kube/kubeconfig.js';
