import { afterEach, describe, expect, it } from '@jest/globals';
import type { Management } from './management-access.js';
import { managementAccess } from './management-access.js';

const kubeconfig = (namespace?: string): string =>
  [
    'current-context: c',
    'clusters: [{name: m, cluster: {server: "https://api.example:6443"}}]',
    'users: [{name: u, user: {token: t}}]',
    `contexts: [{name: c, context: {cluster: m, user: u${namespace ? `, namespace: ${namespace}` : ''}}}]`,
  ].join('\n');

const SA = '/var/run/secrets/kubernetes.io/serviceaccount';

function files(contents: Record<string, string>): (file: string) => string {
  return (file) => {
    if (!(file in contents)) throw Object.assign(new Error(`ENOENT ${file}`), { code: 'ENOENT' });
    return contents[file]!;
  };
}

describe('managementAccess', () => {
  const opened: Management[] = [];
  const open = (...args: Parameters<typeof managementAccess>): Management => {
    const management = managementAccess(...args);
    opened.push(management);
    return management;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((m) => m.api.close()));
  });

  it('takes --kubeconfig first, and its context namespace unless --namespace says otherwise', () => {
    const read = files({ '/flag': kubeconfig('team-a'), '/env': kubeconfig('team-b') });
    const env = { KUBECONFIG: '/env' };
    expect(open({ kubeconfig: '/flag' }, env, read)).toMatchObject({
      server: 'https://api.example:6443',
      namespace: 'team-a',
    });
    expect(open({ kubeconfig: '/flag', namespace: 'ci' }, env, read).namespace).toBe('ci');
    expect(open({}, env, read).namespace).toBe('team-b');
    expect(open({}, { KUBECONFIG: '/flag' }, files({ '/flag': kubeconfig() })).namespace).toBe(
      'default',
    );
  });

  it("runs in a pod with its ServiceAccount and the pod's namespace", () => {
    const read = files({
      [`${SA}/ca.crt`]: 'ca',
      [`${SA}/token`]: 'token',
      [`${SA}/namespace`]: 'pipelines\n',
    });
    const env = {
      HOME: '/nowhere',
      KUBERNETES_SERVICE_HOST: '10.0.0.1',
      KUBERNETES_SERVICE_PORT: '443',
    };
    expect(open({}, env, read)).toMatchObject({
      server: 'https://10.0.0.1:443',
      namespace: 'pipelines',
    });
  });

  it('says what is wrong with the access, as bad input (exit 2)', () => {
    const read = files({ '/exec': kubeconfig().replace('{token: t}', '{exec: {command: x}}') });
    expect(() => managementAccess({ kubeconfig: '/absent' }, {}, read)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining('/absent cannot be read'),
      }),
    );
    expect(() => managementAccess({ kubeconfig: '/exec' }, {}, read)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining('authenticates with "exec"'),
      }),
    );
    expect(() => managementAccess({}, { HOME: '/nowhere' }, read)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining('give --kubeconfig'),
      }),
    );
  });
});
