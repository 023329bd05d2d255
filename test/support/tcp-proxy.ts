import { createServer, connect, Server, Socket } from 'node:net';
import { freePort } from './test-app';

/**
 * A TCP forwarder to a real server (e.g. the shared PostgreSQL) that a test can cut and restore:
 * `cut()` closes every connection through it and refuses new ones, as a crashed server would;
 * `restore()` accepts again on the same port. The real server is never touched.
 */
export class TcpProxy {
  port = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** With roundRobin: the ports new connections go to, in turn. */
  private turns: number[] = [];
  private turn = 0;

  constructor(
    private targetHost: string,
    private targetPort: number,
  ) {}

  /**
   * New connections go to `port` from now on; those already open stay with the old server, as an address
   * moved to a promoted replica leaves the clients of the old primary connected to it.
   */
  retarget(port: number, host = this.targetHost): void {
    this.targetHost = host;
    this.targetPort = port;
  }

  /** New connections go to each of `ports` in turn, as a TCP load balancer in front of several servers does. */
  roundRobin(ports: number[]): this {
    this.turns = ports;
    return this;
  }

  async start(): Promise<this> {
    this.port ||= await freePort();
    this.server = createServer((client) => {
      const port = this.turns.length > 0 ? this.turns[this.turn++ % this.turns.length] : this.targetPort;
      const upstream = connect(port, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    return this;
  }

  /** Drops every connection and stops accepting (connections are refused). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  restore(): Promise<this> {
    return this.start();
  }

  /** `url` with its host and port replaced by this proxy's. */
  urlFor(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }
}
