import { DIAGNOSTICS_BOUNDS, tail } from './diagnostics-bounds.js';
import type { ContainerFacts, JobFacts, PodFacts } from './diagnostics-facts.js';
import type { DiagnosticsReader } from './diagnostics-reader.js';
import type { CoreEvent, StatusObject } from './object-facts.js';
import { cleanText, objectFacts } from './object-facts.js';
import { redact } from './redact.js';

interface ContainerStatus {
  name?: string;
  restartCount?: number;
  state?: Record<string, { reason?: string; exitCode?: number; message?: string } | undefined>;
}

function containerFacts(status: ContainerStatus): ContainerFacts {
  const [state, detail] = Object.entries(status.state ?? {})[0] ?? ['unknown', undefined];
  return {
    name: cleanText(status.name ?? '', 128),
    state,
    ...(detail?.reason ? { reason: cleanText(detail.reason, 256) } : {}),
    ...(typeof detail?.exitCode === 'number' ? { exitCode: detail.exitCode } : {}),
    ...(status.restartCount ? { restarts: status.restartCount } : {}),
    ...(detail?.message ? { message: cleanText(detail.message, 4096) } : {}),
  };
}

async function podFacts(
  pod: StatusObject,
  reader: DiagnosticsReader,
  namespace: string,
): Promise<PodFacts> {
  const status = (pod.status ?? {}) as {
    phase?: string;
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
  const facts: PodFacts = {
    name: pod.metadata?.name ?? '',
    ...(status.phase ? { phase: status.phase } : {}),
    containers: [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map(
      containerFacts,
    ),
  };
  if (!reader.podLog) return facts;
  try {
    const log = await reader.podLog(namespace, facts.name, {
      tailLines: DIAGNOSTICS_BOUNDS.logLines,
      limitBytes: DIAGNOSTICS_BOUNDS.logBytes,
    });
    facts.log = tail(redact(log), DIAGNOSTICS_BOUNDS.logLines, DIAGNOSTICS_BOUNDS.logBytes);
  } catch (error) {
    facts.logNote = cleanText(
      `log not read: ${error instanceof Error ? error.message : String(error)}`,
      512,
    );
  }
  return facts;
}

/** A crc-agent Job: its status and Events, its newest pods with their containers and log tails. */
export async function jobFacts(
  job: StatusObject,
  pods: StatusObject[],
  events: CoreEvent[],
  reader: DiagnosticsReader,
  notes: string[],
): Promise<JobFacts> {
  const namespace = job.metadata?.namespace ?? '';
  const newest = [...pods]
    .sort((a, b) =>
      (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? ''),
    )
    .slice(0, DIAGNOSTICS_BOUNDS.podsPerJob);
  if (pods.length > newest.length)
    notes.push(
      `Job ${job.metadata?.name ?? ''}: ${pods.length - newest.length} older pods not described`,
    );
  const described: PodFacts[] = [];
  for (const pod of newest) described.push(await podFacts(pod, reader, namespace));
  return { job: objectFacts('Job', job, events), pods: described };
}
