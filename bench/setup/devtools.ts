// The Chrome DevTools Protocol over Node's own WebSocket: commands answered by id, events by name. Just what the
// browser run drives a page with (no client library: Chromium comes from Debian, not npm).

const COMMAND_TIMEOUT_MS = 120_000;

type Listener = (params: Record<string, unknown>) => void;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class DevTools {
  private readonly socket: WebSocket;
  private next = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly listeners = new Map<string, Listener[]>();

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (event) => this.receive(String(event.data)));
    socket.addEventListener('close', () => {
      for (const [id, waiting] of this.waiting) {
        clearTimeout(waiting.timer);
        waiting.reject(new Error(`DevTools closed before command ${id} was answered`));
      }
      this.waiting.clear();
    });
  }

  /** Connected to a target's `webSocketDebuggerUrl`. */
  static connect(url: string): Promise<DevTools> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener('open', () => resolve(new DevTools(socket)), { once: true });
      socket.addEventListener('error', () => reject(new Error(`cannot reach DevTools at ${url}`)), { once: true });
    });
  }

  /** A command; rejects with the protocol's error, or after COMMAND_TIMEOUT_MS. */
  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${method} had no answer in ${COMMAND_TIMEOUT_MS / 1000} s`));
      }, COMMAND_TIMEOUT_MS);
      this.waiting.set(id, { resolve: (result) => resolve(result as T), reject, timer });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  on(event: string, listener: Listener): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }

  /** Resolves with the next `event`'s parameters; rejects after `ms`. */
  once(event: string, ms: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${event} in ${ms / 1000} s`)), ms);
      const listener: Listener = (params) => {
        clearTimeout(timer);
        this.listeners.set(
          event,
          (this.listeners.get(event) ?? []).filter((l) => l !== listener),
        );
        resolve(params);
      };
      this.on(event, listener);
    });
  }

  close(): void {
    this.socket.close();
  }

  private receive(text: string): void {
    const message = JSON.parse(text) as {
      id?: number;
      result?: unknown;
      error?: { message?: string };
      method?: string;
      params?: Record<string, unknown>;
    };
    if (message.id !== undefined) {
      const waiting = this.waiting.get(message.id);
      if (waiting === undefined) return;
      this.waiting.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.error !== undefined) waiting.reject(new Error(message.error.message ?? 'DevTools error'));
      else waiting.resolve(message.result);
    } else if (message.method !== undefined) {
      for (const listener of this.listeners.get(message.method) ?? []) listener(message.params ?? {});
    }
  }
}
