/** Kubernetes quantities in bytes, for comparing a requested disk size with a disk's virtual size. */

const SUFFIXES: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Bytes of a quantity such as 80Gi, 35G or 1e9; NaN when it is not one. */
export function quantityBytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:[eE](\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?)$/.exec(quantity);
  if (!match) return NaN;
  const [, number, exponent, suffix] = match;
  return Number(number) * (exponent ? 10 ** Number(exponent) : SUFFIXES[suffix ?? '']!);
}

/** The requested size, or the smallest whole Mi at least `minimumBytes` when the request is smaller. */
export function atLeast(requested: string, minimumBytes: number | undefined): string {
  if (!minimumBytes || quantityBytes(requested) >= minimumBytes) return requested;
  return `${Math.ceil(minimumBytes / 2 ** 20)}Mi`;
}
