import type { ClusterInstance } from '../../client/api/resources.js';
import { SECRETS } from '../../client/api/resources.js';
import type { GuestCollector, SecretRef } from '../../client/diagnostics/collect-diagnostics.js';
import { readFailure } from '../../client/diagnostics/collect-diagnostics.js';
import { DIAGNOSTICS_BOUNDS } from '../../client/diagnostics/diagnostics-bounds.js';
import type {
  ClusterOperatorFacts,
  GuestFacts,
  NodeFacts,
} from '../../client/diagnostics/diagnostics-facts.js';
import type { DiagnosticsReader } from '../../client/diagnostics/diagnostics-reader.js';
import type { CoreEvent } from '../../client/diagnostics/object-facts.js';
import { cleanText, conditionFacts, eventFacts } from '../../client/diagnostics/object-facts.js';
import type { KubeObject } from '../../client/kube/objects.js';
import { KUBECONFIG_KEY } from '../../contracts/names.js';
import type { GuestAccess } from '../kube/strict-kubeconfig.js';
import { KubeconfigRejectedError, readStrictKubeconfig } from '../kube/strict-kubeconfig.js';
import type { GuestGet } from './guest-requests.js';
import { guestGetter } from './guest-requests.js';

/** A guest that does not answer within this is noted as such (docs/diagnostics.md#the-guest). */
export const GUEST_TIMEOUT_MS = 5_000;

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

interface Items<T> {
  items?: T[];
}

type Guest = KubeObject & { status?: Record<string, unknown> };

/** The first of the Secrets whose kubeconfig the strict reader accepts for the instance's endpoint. */
async function guestAccess(
  reader: DiagnosticsReader,
  endpoint: string,
  secrets: readonly SecretRef[],
  notes: string[],
): Promise<GuestAccess | undefined> {
  for (const { name, namespace } of secrets) {
    const where = `Secret ${namespace}/${name}`;
    try {
      const secret = await reader.get<SecretObject>(SECRETS, name, namespace);
      const data = secret?.data?.[KUBECONFIG_KEY];
      if (!data) {
        notes.push(`${where}: ${secret ? `no "${KUBECONFIG_KEY}" key` : 'not found'}`);
        continue;
      }
      return readStrictKubeconfig(Buffer.from(data, 'base64').toString('utf8'), {
        servers: [endpoint],
      });
    } catch (error) {
      // The strict reader names the field it refused, never a value.
      if (error instanceof KubeconfigRejectedError) notes.push(`${where}: ${error.message}`);
      else notes.push(`${where}: ${readFailure(error)}`);
    }
  }
  return undefined;
}

function operatorFacts(co: Guest): ClusterOperatorFacts {
  const status = (co.status ?? {}) as { versions?: { name?: string; version?: string }[] };
  return {
    name: cleanText(co.metadata?.name ?? '', 256),
    versions: (status.versions ?? []).slice(0, 10).map((v) => ({
      name: cleanText(v.name ?? '', 128),
      version: cleanText(v.version ?? '', 128),
    })),
    conditions: conditionFacts(co.status?.conditions),
  };
}

function nodeFacts(node: Guest): NodeFacts {
  const status = (node.status ?? {}) as {
    conditions?: { type?: string; status?: string }[];
    nodeInfo?: { kubeletVersion?: string };
  };
  const ready = status.conditions?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
  return {
    name: cleanText(node.metadata?.name ?? '', 256),
    ready: cleanText(ready, 32),
    ...(status.nodeInfo?.kubeletVersion
      ? { kubeletVersion: cleanText(status.nodeInfo.kubeletVersion, 64) }
      : {}),
  };
}

const items = async <T>(get: GuestGet, path: string): Promise<T[]> =>
  ((await get(path)) as Items<T>).items ?? [];

async function readGuest(get: GuestGet, facts: GuestFacts): Promise<void> {
  const limit = DIAGNOSTICS_BOUNDS.guestItems;
  // The first answer says whether the guest is there at all; a silent one is not waited on.
  facts.nodes = (await items<Guest>(get, `/api/v1/nodes?limit=${limit}`)).map(nodeFacts);
  facts.reached = true;
  const notes: string[] = [];
  try {
    facts.clusterOperators = (
      await items<Guest>(get, `/apis/config.openshift.io/v1/clusteroperators?limit=${limit}`)
    ).map(operatorFacts);
  } catch (error) {
    notes.push(`ClusterOperators: ${(error as Error).message}`);
  }
  try {
    const warnings = await items<CoreEvent>(
      get,
      '/api/v1/events?fieldSelector=type%3DWarning&limit=500',
    );
    facts.warnings = eventFacts(warnings, DIAGNOSTICS_BOUNDS.guestWarnings, true);
  } catch (error) {
    notes.push(`Warning Events: ${(error as Error).message}`);
  }
  if (notes.length) facts.note = cleanText(notes.join('; '), 1024);
}

/**
 * The guest part of diagnostics: reached only at `status.apiEndpoint` of the instance, with the
 * operator-published kubeconfig read strictly (operator/kube/strict-kubeconfig.ts), within
 * GUEST_TIMEOUT_MS per request.
 */
export function guestCollector(
  reader: DiagnosticsReader,
  timeoutMs: number = GUEST_TIMEOUT_MS,
): GuestCollector {
  return async (instance: ClusterInstance, secrets: readonly SecretRef[]) => {
    const endpoint = instance.status!.apiEndpoint!;
    const facts: GuestFacts = {
      endpoint,
      reached: false,
      clusterOperators: [],
      nodes: [],
      warnings: [],
    };
    const notes: string[] = [];
    const access = await guestAccess(reader, endpoint, secrets, notes);
    if (!access) {
      facts.note = cleanText(`not reached: no usable kubeconfig (${notes.join('; ')})`, 1024);
      return facts;
    }
    const guest = guestGetter(access, timeoutMs);
    try {
      await readGuest(guest.get, facts);
    } catch (error) {
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000}s`
          : (error as Error).message;
      facts.note = cleanText(`the guest did not answer: ${reason}`, 1024);
    } finally {
      await guest.close();
    }
    return facts;
  };
}
