import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWTPayload } from 'jose';
import type { OidcIssuer } from './oidc-issuer.js';

/**
 * A stand-in of the runner's ID-token endpoint (ACTIONS_ID_TOKEN_REQUEST_URL, with the bearer
 * ACTIONS_ID_TOKEN_REQUEST_TOKEN): `GET ?api-version=2.0&audience=AUD` answers `{ value }`, a
 * token of `issuer` with the job's claims and that audience, as a job with
 * `permissions: id-token: write` gets from GitHub.
 */
export class GitHubIdTokenEndpoint {
  /** Tokens handed out, by audience: a test sees how often the job asked. */
  readonly issued: string[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly requestToken: string,
  ) {}

  static async start(issuer: OidcIssuer, claims: JWTPayload): Promise<GitHubIdTokenEndpoint> {
    const requestToken = randomBytes(16).toString('hex');
    const holder: { endpoint?: GitHubIdTokenEndpoint } = {};
    const server = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      if (request.headers.authorization !== `Bearer ${requestToken}`) {
        response.writeHead(401).end();
        return;
      }
      const audience = url.searchParams.get('audience') ?? 'https://github.com/octo-org';
      void issuer.mint({ ...claims, aud: audience }).then((value) => {
        holder.endpoint!.issued.push(audience);
        response
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ value }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.endpoint = new GitHubIdTokenEndpoint(server, requestToken);
    return holder.endpoint;
  }

  /** The variables a runner sets for a job allowed to ask for ID tokens. */
  get env(): Record<string, string> {
    const { port } = this.server.address() as AddressInfo;
    return {
      ACTIONS_ID_TOKEN_REQUEST_URL: `http://127.0.0.1:${port}/token?api-version=2.0`,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: this.requestToken,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
