#!/usr/bin/env node
import { ConfigError, loadAgentConfig, parseArgs } from './config.js';
import { createLogger } from './logger.js';
import { loadManagementConfig } from './management-client.js';
import { runAgent } from './run-agent.js';

const log = createLogger();
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => controller.abort(new Error(`received ${signal}`)));

async function main(): Promise<number> {
  try {
    const { mode, overrides } = parseArgs(process.argv.slice(2));
    if (mode === 'bundle-prep')
      throw new ConfigError('bundle-prep mode is not available in this build');
    const config = loadAgentConfig(process.env, overrides);
    return await runAgent(config, {
      log,
      loadKubeConfig: () => loadManagementConfig(process.env),
      signal: controller.signal,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.error(
      `crc-agent failed: ${error.message}. To fix: set the named variable (or flag) in the Job`,
    );
    return 1;
  }
}

process.exit(await main());
