/**
 * Jazzer target: a raw request body through both envelope parsers and both whole engines (node RPC over
 * HTTP and WebSocket, with and without a batch limit; EVM). Defects: an untyped failure, an id that is
 * not JSON text, an untyped exception logged, a reply that is not a JSON-RPC answer, over 1 s.
 */
import { parseEvmBody } from '../../../src/evm-rpc/evm-envelope';
import { NodeDialect } from '../../../src/node-rpc/node-dialect';
import type { Transport } from '../../../src/rpc/call-context';
import { checkLogged, ENGINES, engineOf, watchLog } from '../engines';
import { checkAnswer, checkBody, timed, timedAsync } from '../oracles';

watchLog();
const node = new NodeDialect();
const engines = ENGINES.flatMap(([, dialect, methods]) => [0, 3].map((batch) => engineOf(dialect, methods, batch)));
const TRANSPORTS: Transport[] = ['jsonrpc', 'ws'];

export async function fuzz(data: Buffer): Promise<void> {
  const text = data.toString('utf8');
  checkBody(timed(() => parseEvmBody(text)));
  for (const transport of TRANSPORTS) checkBody(timed(() => node.parse(text, transport)));
  for (const engine of engines) {
    for (const transport of TRANSPORTS) {
      const reply = await timedAsync(() => engine.handle(text, { transport, remote: '127.0.0.1:1', bytes: data.length }));
      checkLogged();
      if (reply.body !== undefined) checkAnswer(reply.body);
    }
  }
}
