import { afterEach, describe, expect, test } from '@jest/globals';
import ssh2 from 'ssh2';
import { freePort } from '../../dev/control-plane/free-port.js';
import { useWorld } from '../support/world.js';
import type { AgentOutput, RunSetup } from '../support/runners/agent-run.js';
import {
  failureLine,
  prepareRun,
  runAgentProcess,
  secretFragments,
  TEST_PULL_SECRET,
} from '../support/runners/agent-run.js';

const { ns } = useWorld({ namespace: 'crc-fail' });
let setup: RunSetup | undefined;

afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

/** Short deadlines so that the "never" cases end; they only bound how long failing takes. */
const FAST = {
  CRC_AGENT_RETRY_INTERVAL: '100ms',
  CRC_AGENT_SSH_WAIT_TIMEOUT: '2s',
  CRC_AGENT_GUEST_RETRY_TIMEOUT: '2s',
  CRC_AGENT_CLUSTER_POLL_TIMEOUT: '2s',
};

function expectFailure(run: AgentOutput, ...expected: string[]): void {
  const line = failureLine(run);
  for (const text of expected) expect(line).toContain(text);
  expect(line).toContain('To fix: ');
  expect(run.exitCode).toBe(1);
  const leaks = secretFragments(
    setup!.identity.clientKeyPem,
    setup!.identity.servingKeyPem,
    setup!.guest.bundlePrivateKey,
    setup!.guest.pki.admin.keyPem,
    TEST_PULL_SECRET,
  ).filter((fragment) => run.output.includes(fragment));
  expect(leaks).toEqual([]);
  expect(run.output).not.toMatch(/PRIVATE KEY/);
}

describe('crc-agent failures end with exit 1 and say what to fix', () => {
  test('missing required configuration names the variables', async () => {
    setup = await prepareRun(ns, 'fail-config');
    const env = { ...setup.env };
    delete env.INSTANCE_NAME;
    delete env.CRC_VMI_UID;
    const run = await runAgentProcess(env);
    expectFailure(run, 'missing required configuration', 'INSTANCE_NAME', 'CRC_VMI_UID');
  });

  test('a malformed timing override names the variable', async () => {
    setup = await prepareRun(ns, 'fail-timing');
    const run = await runAgentProcess({ ...setup.env, CRC_AGENT_RETRY_INTERVAL: 'soon' });
    expectFailure(run, 'CRC_AGENT_RETRY_INTERVAL="soon"');
  });

  test('SSH unreachable', async () => {
    setup = await prepareRun(ns, 'fail-unreachable');
    const closedPort = await freePort();
    const run = await runAgentProcess({ ...setup.env, ...FAST, CRC_SSH_PORT: String(closedPort) });
    expectFailure(
      run,
      `SSH port 127.0.0.1:${closedPort} never accepted a connection`,
      'ECONNREFUSED',
      'virtctl console',
    );
  });

  test('wrong bundle key', async () => {
    const other = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    setup = await prepareRun(ns, 'fail-key', { authorizedPublicKey: other.public });
    const run = await runAgentProcess({ ...setup.env, ...FAST });
    expectFailure(
      run,
      'SSH login to 127.0.0.1',
      'with the bundle key failed',
      'bundle SSH key Secret matches the CRCBundle',
    );
    expect(setup.guest.machine.commands).toEqual([]);
  });

  test('a guest command failing', async () => {
    setup = await prepareRun(ns, 'fail-command', {
      failures: [
        {
          match: /^sudo systemctl start dnsmasq$/,
          exitCode: 1,
          stderr:
            'Job for dnsmasq.service failed because the control process exited with error code.\n',
        },
      ],
    });
    const run = await runAgentProcess({ ...setup.env, ...FAST });
    expectFailure(
      run,
      'guest step "configure dnsmasq" failed',
      'sudo systemctl start dnsmasq',
      'exited with status 1',
      'Job for dnsmasq.service failed',
    );
    expect(setup.guest.machine.activeUnits.has('kubelet')).toBe(false);
  });

  test('guest API never ready', async () => {
    setup = await prepareRun(ns, 'fail-api', { apiNeverReady: true });
    const run = await runAgentProcess({ ...setup.env, ...FAST });
    expectFailure(
      run,
      'guest step "bootstrap client CA" failed',
      'timed out after 2s waiting for the guest API server to accept the admin-kubeconfig-client-ca patch',
      'the server is currently unable to handle the request',
      "the guest's kube-apiserver must come up",
    );
  });

  test('missing pull secret fails before the guest is touched', async () => {
    setup = await prepareRun(ns, 'fail-pull-secret');
    const run = await runAgentProcess({
      ...setup.env,
      PULL_SECRET_PATH: `${setup.files.dir}/absent/.dockerconfigjson`,
    });
    expectFailure(run, 'pull secret is not readable', 'ENOENT', 'PULL_SECRET_PATH');
    expect(setup.guest.machine.commands).toEqual([]);
  });

  test('an identity issued for another host name fails pre-flight', async () => {
    setup = await prepareRun(ns, 'fail-identity');
    const run = await runAgentProcess({
      ...setup.env,
      CRC_API_HOSTNAME: 'api-other.apps.example.test',
    });
    expectFailure(
      run,
      'mounted CRC identity failed pre-flight validation',
      'serving certificate',
      'CRC_IDENTITY_PATH',
    );
    expect(setup.guest.machine.commands).toEqual([]);
  });

  test('an unreadable bundle key fails pre-flight', async () => {
    setup = await prepareRun(ns, 'fail-key-file');
    const run = await runAgentProcess({
      ...setup.env,
      CRC_SSH_KEY_PATH: setup.files.pullSecretPath,
    });
    expectFailure(run, 'mounted bundle SSH key failed pre-flight validation', 'CRC_SSH_KEY_PATH');
  });
});
