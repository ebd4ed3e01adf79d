/**
 * Runs every removal in order, each whatever the ones before it said (teardown goes as far as it
 * can on every pass); true while any of the objects is still going away.
 */
export async function removeAll(removals: readonly (() => Promise<boolean>)[]): Promise<boolean> {
  let pending = false;
  for (const remove of removals) pending = (await remove()) || pending;
  return pending;
}
