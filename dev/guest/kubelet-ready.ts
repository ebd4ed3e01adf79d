/** The Ready condition a kubelet posts for its node, timestamped now (metav1.Time has whole seconds). */
export function kubeletReadyCondition(): Record<string, string> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    type: 'Ready',
    status: 'True',
    reason: 'KubeletReady',
    message: 'kubelet is posting ready status',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
}
