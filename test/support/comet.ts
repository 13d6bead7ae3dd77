import { Comet38Client, WebsocketClient } from '@cosmjs/tendermint-rpc';

/** The heights of the first `count` NewBlock events CosmJS's WebSocket client receives from `url`. */
export async function newBlockHeights(url: string, count: number): Promise<number[]> {
  const ws = new WebsocketClient(url.replace(/^http/, 'ws'));
  const client = Comet38Client.create(ws);
  try {
    return await new Promise<number[]>((resolve, reject) => {
      const seen: number[] = [];
      const sub = client.subscribeNewBlock().subscribe({
        next: (event) => {
          seen.push(event.header.height);
          if (seen.length === count) {
            sub.unsubscribe();
            resolve(seen);
          }
        },
        error: reject,
      });
    });
  } finally {
    disconnectForGood(ws);
  }
}

/** What CosmJS's WebsocketClient keeps of its ReconnectingSocket (private in its typings). */
interface ReconnectingSocketState {
  readonly connectionStatus: { readonly updates: { subscribe(listener: { next: () => void }): unknown } };
  reconnectTimeout: ReturnType<typeof setTimeout> | null;
}

/**
 * Closes a CosmJS WebsocketClient so that it stays closed. `WebsocketClient.disconnect()` alone does not:
 * its ReconnectingSocket arms a reconnect timer on every `Disconnected` status, including the one its own
 * `disconnect()` reports (it never reads its `disconnected` flag there), so 100 ms later it opens a new
 * socket, and once the server is gone it retries every 5 s forever, which keeps the test process alive.
 * CosmJS offers no public way to stop it, so clear that timer now and after every later status change
 * (a later one can come from the close handshake ending uncleanly). Nothing of the library is patched.
 */
export function disconnectForGood(ws: WebsocketClient): void {
  const socket = (ws as unknown as { socket: ReconnectingSocketState }).socket;
  const cancelReconnect = () => {
    if (socket.reconnectTimeout) clearTimeout(socket.reconnectTimeout);
    socket.reconnectTimeout = null;
  };
  ws.disconnect();
  cancelReconnect();
  // Listeners run in subscription order, so this one runs after the socket's own has armed its timer.
  socket.connectionStatus.updates.subscribe({ next: cancelReconnect });
}
