import tls from 'node:tls';
import { parse } from 'yaml';
import { RestClient } from '../../crc-agent/rest-client.js';

export const AUTHORIZED_KEYS = '/home/core/.ssh/authorized_keys';
export const GUEST_KUBECONFIG = '/opt/kubeconfig';

export interface CommandOutcome {
  exitCode: number;
  stdout?: string | Buffer;
  stderr?: string;
}

/** A command the test makes fail (or hang) on purpose. */
export interface InjectedFailure {
  match: RegExp;
  exitCode: number;
  stderr: string;
}

export interface GuestMachineOptions {
  /** What `ip -4 route get` reports as the source address (masquerade NAT address). */
  guestIp?: string;
  /** LoadState of ovs-configuration.service: "loaded" (OVN bundles) or "not-found". */
  ovsLoadState?: 'loaded' | 'not-found';
  failures?: InjectedFailure[];
  /** Called before each command; resolve to run it, or never resolve to keep it hanging. */
  beforeCommand?: (command: string) => Promise<void>;
}

type Handler = (match: RegExpExecArray) => CommandOutcome | Promise<CommandOutcome>;

const ok = (stdout = ''): CommandOutcome => ({ exitCode: 0, stdout });
const decode = (data: string): string => Buffer.from(data, 'base64').toString('utf8');
const KNOWN_UNITS = ['dnsmasq', 'kubelet', 'ovs-configuration.service', 'NetworkManager.service'];

/**
 * The state of a CRC guest that crc-agent changes, and the shell commands it understands, with
 * the effects they have on RHCOS. Anything else fails the way a shell does: status 127.
 */
export class GuestMachine {
  readonly files = new Map<string, string>();
  readonly enabledUnits = new Set<string>();
  readonly activeUnits = new Set<string>();
  readonly commands: string[] = [];
  rootGrown = false;
  nmcliDns: string | undefined;
  /** Where the guest's `oc` reaches the API server (api.crc.testing from inside the guest). */
  apiEndpoint: { host?: string; port: number } | undefined;
  readonly guestIp: string;
  private readonly handlers: [RegExp, Handler][];
  /** /opt/kubeconfig exists from the start but is readable once the kubelet has started. */
  private readonly bundleKubeconfig: string;

  constructor(
    bundleKubeconfig: string,
    authorizedKeys: string,
    private readonly options: GuestMachineOptions = {},
  ) {
    this.guestIp = options.guestIp ?? '10.0.2.15';
    this.bundleKubeconfig = bundleKubeconfig;
    this.files.set(AUTHORIZED_KEYS, authorizedKeys);
    this.handlers = this.commandTable();
  }

  authorizedKeys(): string {
    return this.files.get(AUTHORIZED_KEYS) ?? '';
  }

  /** Whether sshd could resolve api.crc.testing to the guest: dnsmasq runs and the resolver uses it. */
  resolvesApiHost(): boolean {
    const dnsmasq = this.files.get('/etc/dnsmasq.d/crc-dnsmasq.conf') ?? '';
    const resolver =
      this.nmcliDns === this.guestIp ||
      (this.files.get('/etc/resolv.conf') ?? '').includes(`nameserver ${this.guestIp}`);
    return (
      this.activeUnits.has('dnsmasq') &&
      dnsmasq.includes(`address=/api.crc.testing/${this.guestIp}`) &&
      resolver
    );
  }

  async run(command: string): Promise<CommandOutcome> {
    this.commands.push(command);
    await this.options.beforeCommand?.(command);
    const failure = this.options.failures?.find((f) => f.match.test(command));
    if (failure) return { exitCode: failure.exitCode, stderr: failure.stderr };
    for (const [pattern, handler] of this.handlers) {
      const match = pattern.exec(command);
      if (match) return handler(match);
    }
    const word = command.trim().split(/\s+/)[0] ?? '';
    return { exitCode: 127, stderr: `bash: line 1: ${word}: command not found\n` };
  }

  private commandTable(): [RegExp, Handler][] {
    return [
      [
        /^ip -4 route get 1\.1\.1\.1 2>\/dev\/null \| awk '\{for\(i=1;i<=NF;i\+\+\) if \(\$i=="src"\) print \$\(i\+1\)\}'$/,
        () => ok(`${this.guestIp}\n`),
      ],
      [
        /^sudo sh -ceu '([^']*growpart[^']*xfs_growfs \/sysroot[^']*)'$/,
        () => {
          // The clone is as large as the bundle disk here: growpart reports NOCHANGE (status 1).
          this.rootGrown = true;
          return ok('root partition already uses all available disk space\n');
        },
      ],
      [
        /^sudo install -m 0644 -D \/dev\/null "([^"]+)" && echo ([A-Za-z0-9+/=]*) \| base64 --decode \| sudo tee "\1" > \/dev\/null$/,
        (m) => {
          this.files.set(m[1]!, decode(m[2]!));
          return ok();
        },
      ],
      [
        /^sudo test -f "([^"]+)" \|\| sudo install -m 0644 -D \/dev\/null "\1"; echo ([A-Za-z0-9+/=]*) \| base64 --decode \| sudo tee -a "\1" > \/dev\/null$/,
        (m) => {
          this.files.set(m[1]!, (this.files.get(m[1]!) ?? '') + decode(m[2]!));
          return ok();
        },
      ],
      [
        // sed -i '\|<text>|d' <file>: every line holding <text> goes.
        /^sudo sed -i '\\\|([A-Za-z0-9+/=]+)\|d' (\S+)$/,
        (m) => {
          const lines = (this.files.get(m[2]!) ?? '').split('\n');
          this.files.set(m[2]!, lines.filter((line) => !line.includes(m[1]!)).join('\n'));
          return ok();
        },
      ],
      [/^sudo systemctl daemon-reload$/, () => ok()],
      [/^sudo systemctl (enable|start|restart) (\S+)$/, (m) => this.systemctl(m[1]!, m[2]!)],
      [
        /^systemctl show ovs-configuration\.service -p LoadState --value$/,
        () => ok(`${this.options.ovsLoadState ?? 'loaded'}\n`),
      ],
      [
        /^sudo nmcli con modify --temporary ovs-if-br-ex ipv4\.dns (\S+) ipv4\.dns-search crc\.testing$/,
        (m) => {
          if (!this.activeUnits.has('ovs-configuration.service'))
            return { exitCode: 10, stderr: "Error: unknown connection 'ovs-if-br-ex'.\n" };
          this.nmcliDns = m[1]!;
          return ok();
        },
      ],
      [
        /^sudo cat \/opt\/kubeconfig$/,
        () =>
          this.activeUnits.has('kubelet')
            ? ok(this.files.get(GUEST_KUBECONFIG) ?? this.bundleKubeconfig)
            : { exitCode: 1, stderr: 'cat: /opt/kubeconfig: No such file or directory\n' },
      ],
      [
        /^sudo oc --kubeconfig \/opt\/kubeconfig patch configmap (\S+) -n (\S+) --patch '([^']*)'$/,
        (m) => this.ocPatchConfigMap(m[1]!, m[2]!, m[3]!),
      ],
    ];
  }

  private systemctl(verb: string, unit: string): CommandOutcome {
    if (!KNOWN_UNITS.includes(unit))
      return { exitCode: 5, stderr: `Failed to ${verb} ${unit}: Unit ${unit} not found.\n` };
    if (verb === 'enable') this.enabledUnits.add(unit);
    else this.activeUnits.add(unit);
    return ok();
  }

  /** The guest's own `oc`, authenticating with whatever /opt/kubeconfig holds at that moment. */
  private async ocPatchConfigMap(
    name: string,
    namespace: string,
    patch: string,
  ): Promise<CommandOutcome> {
    const endpoint = this.apiEndpoint;
    if (!endpoint)
      return {
        exitCode: 1,
        stderr: 'Unable to connect to the server: dial tcp: connect: connection refused\n',
      };
    const config = parse(this.files.get(GUEST_KUBECONFIG) ?? this.bundleKubeconfig) as {
      clusters: { cluster: Record<string, string> }[];
      users: { user: Record<string, string> }[];
    };
    const user = config.users[0]!.user;
    const client = new RestClient(
      () =>
        new Promise((resolve, reject) => {
          const socket = tls.connect({
            host: endpoint.host ?? '127.0.0.1',
            port: endpoint.port,
            servername: 'api.crc.testing',
            ca: decode(config.clusters[0]!.cluster['certificate-authority-data']!),
            cert: decode(user['client-certificate-data']!),
            key: decode(user['client-key-data']!),
          });
          socket.once('secureConnect', () => resolve(socket));
          socket.once('error', reject);
        }),
      'api.crc.testing:6443',
    );
    try {
      await client.json({
        method: 'PATCH',
        path: `/api/v1/namespaces/${namespace}/configmaps/${name}`,
        contentType: 'application/strategic-merge-patch+json',
        body: JSON.parse(patch),
      });
      return ok(`configmap/${name} patched\n`);
    } catch (error) {
      return { exitCode: 1, stderr: `Error from server: ${(error as Error).message}\n` };
    }
  }
}
