// Loaded (`node --import`) before the suite's origin server, which listens on every interface
// (`server.listen(port)`): in a conformance run it answers on loopback only.
import { Server } from 'node:net';

const listen = Server.prototype.listen;

Server.prototype.listen = function listenOnLoopback(this: Server, ...args: unknown[]): Server {
  const [port, next] = args;
  const portOnly =
    (typeof port === 'number' || typeof port === 'string') && (args.length === 1 || typeof next === 'function');
  return Reflect.apply(listen, this, portOnly ? [Number(port), '127.0.0.1', ...args.slice(1)] : args);
};
