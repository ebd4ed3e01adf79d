/** The `guestcluster local …` commands, which the local environment under dev/ implements. */
export interface LocalEnvironmentCommands {
  up(): Promise<void>;
  down(): Promise<void>;
  status(): Promise<void>;
  lease(options: { pool?: string }): Promise<void>;
  serve(): Promise<void>;
}

/**
 * Where the build puts the local environment's commands, beside dist/operator. The path is not a
 * static import on purpose: the product builds and ships without dev/ (the operator's image has
 * none), and only `guestcluster local …` loads it.
 */
const LOCAL_COMMANDS = new URL('../../dev/local/local-cli.js', import.meta.url);

/** The local environment's commands, or an error that says where they can be run. */
export async function loadLocalEnvironment(): Promise<LocalEnvironmentCommands> {
  let loaded: { localCommands: LocalEnvironmentCommands };
  try {
    loaded = (await import(LOCAL_COMMANDS.href)) as { localCommands: LocalEnvironmentCommands };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(error).includes(LOCAL_COMMANDS.pathname))
      throw new Error(
        'the local environment is not part of this installation: run it from a clone of the repository (npm start)',
        { cause: error },
      );
    throw error;
  }
  return loaded.localCommands;
}
