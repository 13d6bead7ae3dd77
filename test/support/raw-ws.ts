import WebSocket from 'ws';

/** A WebSocket that opened, or the HTTP status of a refused handshake and its body. */
export type Opened = { readonly ok: true; readonly ws: PipelineSocket } | { readonly ok: false; readonly status: number; readonly body: string };

/**
 * A WebSocket for sending many requests back to back without waiting (pipelining), then collecting
 * the answers by id.
 */
export class PipelineSocket {
  readonly messages: any[] = [];
  private waiters: Array<() => void> = [];
  closeCode: number | undefined;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()));
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('close', (code) => {
      this.closeCode = code;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Opens `url` (with `headers`); a refused handshake resolves with its status and body. */
  static open(url: string, headers: Record<string, string> = {}): Promise<Opened> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('open', () => resolve({ ok: true, ws: new PipelineSocket(socket) }));
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      socket.once('error', (err) => {
        if (!/Unexpected server response/.test(err.message)) reject(err);
      });
    });
  }

  /** Opens `url` and fails the test if the handshake is refused. */
  static async connect(url: string, headers: Record<string, string> = {}): Promise<PipelineSocket> {
    const opened = await PipelineSocket.open(url, headers);
    if (!opened.ok) throw new Error(`WebSocket refused: ${opened.status} ${opened.body}`);
    return opened.ws;
  }

  /** Sends every request at once, in one go, without waiting for any answer. */
  pipeline(requests: readonly unknown[]): void {
    for (const r of requests) this.socket.send(typeof r === 'string' ? r : JSON.stringify(r));
  }

  /** Waits until `count` messages matching `pred` have arrived; returns them. */
  async collect(count: number, pred: (m: any) => boolean = () => true, timeoutMs = 10_000): Promise<any[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.filter(pred);
      if (found.length >= count) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.closeCode !== undefined) throw new Error(`${found.length} of ${count} messages (closed: ${this.closeCode})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves with the close code once the socket is closed. */
  closed(timeoutMs = 10_000): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.closeCode !== undefined) return resolve(this.closeCode);
      const t = setTimeout(() => reject(new Error('socket still open')), timeoutMs);
      this.socket.once('close', (code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
