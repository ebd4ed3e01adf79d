/** A failed API request, with the apiserver's Status reason and message. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly method = '',
    readonly path = '',
  ) {
    super(message);
  }
}

const hasStatus = (error: unknown, status: number): boolean =>
  error instanceof ApiError && error.status === status;

export const isNotFound = (error: unknown): boolean => hasStatus(error, 404);
export const isConflict = (error: unknown): boolean =>
  hasStatus(error, 409) && (error as ApiError).reason === 'Conflict';
export const isAlreadyExists = (error: unknown): boolean =>
  hasStatus(error, 409) && (error as ApiError).reason === 'AlreadyExists';
/** The watch's resourceVersion is too old: relist. */
export const isGone = (error: unknown): boolean => hasStatus(error, 410);
export const isForbidden = (error: unknown): boolean => hasStatus(error, 403);
export const isInvalid = (error: unknown): boolean => hasStatus(error, 422);

/**
 * The request's result, or undefined when it fails in one of the expected ways (NotFound: gone
 * already; Conflict: someone wrote first, and that write's event brings the next pass).
 */
export async function orUndefined<T>(
  request: Promise<T>,
  ...expected: ((error: unknown) => boolean)[]
): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (expected.some((is) => is(error))) return undefined;
    throw error;
  }
}
