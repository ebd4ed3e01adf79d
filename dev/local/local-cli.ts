import type { LocalEnvironmentCommands } from '../../operator/cli/local-environment.js';

/** What `guestcluster local …` runs; each command loads only the modules it needs. */
export const localCommands: LocalEnvironmentCommands = {
  up: async () => (await import('./local-commands.js')).localUp(),
  down: async () => (await import('./local-commands.js')).localDown(),
  status: async () => (await import('./local-commands.js')).localStatus(),
  lease: async (options) => (await import('./local-lease.js')).localLease(options),
  serve: async () => (await import('./local-daemon.js')).serveLocalEnvironment(),
};
