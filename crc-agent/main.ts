#!/usr/bin/env node
import { runBundleBuild } from './bundle-build/run-bundle-build.js';
import { loadBundlePrepConfig } from './bundle-prep/config.js';
import { runBundlePrep } from './bundle-prep/run-bundle-prep.js';
import { ConfigError, loadAgentConfig, parseArgs } from './config.js';
import { createLogger } from './logger.js';
import type { ApiClient } from '../client/kube/api-client.js';
import { managementClient } from './management-client.js';
import { runAgent } from './run-agent.js';

const log = createLogger();
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => controller.abort(new Error(`received ${signal}`)));

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'bundle-build') {
    // One step of the in-cluster bundle build: `crc-agent bundle-build <step>`, configured by
    // the build Job's environment (contracts/bundle-build.ts).
    if (argv.length !== 2) {
      log.error(
        'crc-agent failed: usage is "crc-agent bundle-build <step>". To fix: name one step',
      );
      return 1;
    }
    return runBundleBuild(argv[1]!, { log, signal: controller.signal, env: process.env });
  }
  try {
    const { mode, overrides } = parseArgs(argv);
    // One client for the run, made on first use: a missing configuration fails where it is needed.
    let api: ApiClient | undefined;
    const deps = {
      log,
      managementApi: () => (api ??= managementClient(process.env)),
      signal: controller.signal,
    };
    if (mode === 'bundle-prep') {
      if (Object.keys(overrides).length > 0)
        throw new ConfigError('bundle-prep takes no flags; it reads the prep Job environment');
      return await runBundlePrep(loadBundlePrepConfig(process.env), deps);
    }
    return await runAgent(loadAgentConfig(process.env, overrides), deps);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.error(
      `crc-agent failed: ${error.message}. To fix: set the named variable (or flag) in the Job`,
    );
    return 1;
  }
}

process.exit(await main());
