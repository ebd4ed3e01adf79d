// metav1 times are written by the lease client too: client/kube/meta-time.ts.
export { metaMicroTime, metaTime } from '../../client/kube/meta-time.js';
