/** A problem with the local control plane that a person can act on; the message says what to do. */
export class ControlPlaneError extends Error {
  override name = 'ControlPlaneError';
}
