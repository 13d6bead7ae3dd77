import { Comet38Client, WebsocketClient } from '@cosmjs/tendermint-rpc';

/** The heights of the first `count` NewBlock events CosmJS's WebSocket client receives from `url`. */
export async function newBlockHeights(url: string, count: number): Promise<number[]> {
  const client = Comet38Client.create(new WebsocketClient(url.replace(/^http/, 'ws')));
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
    client.disconnect();
  }
}
