/**
 * An AbortSignal that fires when the runner stops the step (a cancelled run sends SIGINT, then
 * SIGTERM). While it is listened to, the process does not exit on those signals by itself.
 */
export function cancelSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
