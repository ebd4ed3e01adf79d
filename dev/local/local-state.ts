import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where the local environment keeps its kubeconfig, state and log (git-ignored). */
export function localDir(): string {
  return process.env.GUESTCLUSTER_LOCAL_DIR ?? path.resolve('.guestcluster');
}

export const localPaths = {
  kubeconfig: (): string => path.join(localDir(), 'kubeconfig'),
  state: (): string => path.join(localDir(), 'state.json'),
  log: (): string => path.join(localDir(), 'local.log'),
};

/** What a running local environment records about itself. */
export interface LocalState {
  pid: number;
  server: string;
  kubeconfig: string;
  startedAt: string;
  components: Record<string, number | undefined>;
  /** Where kubectl and the other control-plane binaries are. */
  binDir: string;
  /** The folder with each component's log. */
  logs: string;
  /** What the environment set up for leasing, once its platform and operator run. */
  demo?: {
    /** The enabled namespace with the pull secret and the pools. */
    namespace: string;
    pools: string[];
    /** The simulated router as an HTTPS proxy: Route hosts have no DNS here. */
    proxy: string;
  };
}

export async function readLocalState(): Promise<LocalState | undefined> {
  try {
    return JSON.parse(await readFile(localPaths.state(), 'utf8')) as LocalState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function writeLocalState(state: LocalState): Promise<void> {
  await writeFile(localPaths.state(), JSON.stringify(state, null, 2));
}

export async function removeLocalState(): Promise<void> {
  await rm(localPaths.state(), { force: true });
}

export function isProcessAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
