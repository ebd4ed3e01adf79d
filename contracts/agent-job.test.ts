import { describe, expect, it } from '@jest/globals';
import { loadAgentConfig } from '../crc-agent/config.js';
import type { ClusterInstance } from '../client/api/resources.js';
import { buildAgentJob } from '../operator/controllers/clusterinstance/crc/crc-agent-builders.js';
import type { Stored } from '../operator/kube/objects.js';
import { AGENT_ENV, AGENT_MOUNTS, AGENT_PATHS, AgentJobSpec } from './agent-job.js';

const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
};

const job = buildAgentJob(instance, {
  image: 'registry/crc-agent:1',
  vmiUid: 'vmi-1',
  vmiAddress: '10.0.0.7',
  hostname: 'api-pool-0-abc.apps.example',
  pullSecretName: 'pull-secret',
  sshKey: { secretName: 'bundle-key', dataKey: 'ssh-privatekey' },
});
const container = job.spec.template.spec.containers[0]!;
const jobEnv = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

describe('the agent Job contract', () => {
  it('reads back every spec it writes', () => {
    const spec: AgentJobSpec = {
      instanceName: 'pool-0',
      instanceNamespace: 'ci',
      instanceUid: 'uid-1',
      sshHost: '10.0.0.7',
      vmiUid: 'vmi-1',
      apiHostname: 'api.example',
      paths: { sshKey: '/a/key', instanceSshKey: '/b/key', identity: '/c', pullSecret: '/d/ps' },
    };
    expect(AgentJobSpec.fromEnv(AgentJobSpec.toEnv(spec))).toEqual(spec);
  });

  it("gives the agent's configuration loader exactly what the Job builder writes", () => {
    const config = loadAgentConfig(jobEnv);
    expect(config).toMatchObject({
      instanceName: 'pool-0',
      instanceNamespace: 'ci',
      instanceUid: 'uid-1',
      vmiUid: 'vmi-1',
      sshHost: '10.0.0.7',
      sshPort: 22,
      apiHostname: 'api-pool-0-abc.apps.example',
      sshKeyPath: AGENT_PATHS.sshKey,
      instanceSshKeyPath: AGENT_PATHS.instanceSshKey,
      identityPath: AGENT_PATHS.identity,
      pullSecretPath: AGENT_PATHS.pullSecret,
    });
    // Nothing in the Job's environment is a variable the agent does not read.
    const read = new Set<string>(Object.values(AGENT_ENV));
    expect(Object.keys(jobEnv).filter((name) => !read.has(name))).toEqual([]);
    expect(AgentJobSpec.ofContainer(container.env)).toEqual(AgentJobSpec.fromEnv(jobEnv));
  });

  it('mounts every input where the agent reads it', () => {
    const mounts = container.volumeMounts ?? [];
    const volumes = job.spec.template.spec.volumes ?? [];
    for (const mount of Object.values(AGENT_MOUNTS)) {
      expect(mounts).toContainEqual({ name: mount.volume, mountPath: mount.dir, readOnly: true });
      const volume = volumes.find((v) => v.name === mount.volume);
      expect(volume?.secret).toBeDefined();
      // A Secret volume with items writes only those files: the agent's file must be one of them.
      const items = (volume?.secret as { items?: { path: string }[] }).items;
      if ('file' in mount && items) expect(items.map((i) => i.path)).toContain(mount.file);
    }
    const config = loadAgentConfig(jobEnv);
    for (const file of [config.sshKeyPath, config.instanceSshKeyPath, config.pullSecretPath])
      expect(mounts.some((m) => file.startsWith(`${m.mountPath}/`))).toBe(true);
    expect(mounts.map((m) => m.mountPath)).toContain(config.identityPath);
  });

  it('leaves the port, user and paths to their defaults when the environment names none', () => {
    const config = loadAgentConfig({
      [AGENT_ENV.instanceName]: 'a',
      [AGENT_ENV.instanceNamespace]: 'ci',
      [AGENT_ENV.sshHost]: '10.0.0.1',
      [AGENT_ENV.vmiUid]: 'u',
    });
    expect(config).toMatchObject({
      sshPort: 22,
      sshUser: 'core',
      identityPath: AGENT_PATHS.identity,
    });
  });
});
