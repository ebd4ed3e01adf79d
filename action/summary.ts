import type { ActionCore } from './action-core.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import type { Settings } from './inputs.js';

function releaseText(settings: Settings): string {
  if (settings.release) return 'when the job ends';
  return settings.ttl === '0'
    ? 'no: delete the lease when done'
    : `no: at its TTL (${settings.ttl})`;
}

/** A table for the run's summary page; a missing summary file only costs a warning. */
export async function writeSummary(
  actions: ActionCore,
  settings: Settings,
  outputs: Record<string, string>,
): Promise<void> {
  const rows: [string, string][] = [
    ['Lease', `${settings.namespace}/${settings.leaseName}`],
    ['Pool', settings.pool],
    ['Instance', outputs.instance ?? ''],
    ['Topology', outputs.topology ?? ''],
    ['OpenShift', outputs['ocp-version'] ?? ''],
    ['API', outputs['api-endpoint'] ?? ''],
    ['Waited', `${outputs['wait-seconds']} s`],
    ['Released', releaseText(settings)],
  ];
  try {
    await actions.summary
      .addHeading('Guest cluster', 3)
      .addTable(rows.map(([key, value]) => [{ data: key, header: true }, value]))
      .write();
  } catch (error) {
    actions.warning(`Could not write the job summary: ${errorMessage(error)}`);
  }
}
