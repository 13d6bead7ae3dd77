import type { Server } from 'node:net';

/**
 * Caps simultaneous connections (HTTP and WebSocket alike). A connection over the cap gets a short
 * HTTP 503 with a JSON-RPC error and is closed, so a client sees why instead of hanging.
 */
export function limitConnections(servers: readonly Server[], max: number, onRefused?: () => void): () => number {
  let open = 0;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request', data: `max_open_connections ${max} reached` },
  });
  const refusal =
    'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  for (const server of servers) {
    server.on('connection', (socket) => {
      if (max > 0 && open >= max) {
        onRefused?.();
        socket.end(refusal);
        return;
      }
      open++;
      socket.once('close', () => open--);
    });
  }
  return () => open;
}
