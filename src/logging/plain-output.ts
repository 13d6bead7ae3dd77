import type { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

export type LogFormat = 'auto' | 'plain' | 'json';

/** How the process writes its logs: readable lines (with colours on a terminal) or JSON lines. */
export interface LogOutput {
  /** Readable lines and the start-up banner (`plain`), or one JSON object a line (`json`). */
  readonly plain: boolean;
  /** ANSI colours: a terminal, unless NO_COLOR is set (FORCE_COLOR forces them). */
  readonly color: boolean;
}

/**
 * `[log] format` resolved against where stdout goes: `auto` is plain on a terminal and JSON
 * everywhere else (a pipe, a file, a container's log collector).
 */
export function resolveLogOutput(format: LogFormat, stdout: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): LogOutput {
  const tty = stdout.isTTY === true;
  const plain = format === 'plain' || (format === 'auto' && tty);
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  const color = plain && (forced || (tty && env.NO_COLOR === undefined && env.TERM !== 'dumb'));
  return { plain, color };
}

/** Contexts whose lines read well without their name in front. */
const UNNAMED_CONTEXTS: ReadonlySet<string> = new Set(['Gateway', 'Blocks']);

/** Fields of the RequestLog's lines, folded into the readable message. */
const CALL_FIELDS = ['reqId', 'interface', 'transport', 'method', 'id', 'remote', 'ms', 'code', 'error', 'data'];

/**
 * One log object as a person reads it: an RPC call line becomes `evm eth_call → -32000 execution
 * reverted (jsonrpc, 1.2 ms, 127.0.0.1)`, a line from a named context is prefixed with it; every
 * other field stays and is printed after the message.
 */
export function readableLine(line: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...line };
  const context = typeof out.context === 'string' ? out.context : undefined;
  delete out.context;
  if ((out.msg === 'rpc call' || out.msg === 'rpc error') && typeof out.method === 'string') {
    const how = [out.transport, typeof out.ms === 'number' ? `${out.ms} ms` : undefined, out.remote].filter((x) => x !== undefined && x !== '');
    const outcome = out.msg === 'rpc call' ? 'ok' : `→ ${String(out.code)} ${String(out.error ?? '')}`.trimEnd();
    const data = out.data === undefined ? '' : ` data: ${String(out.data)}`;
    out.msg = `${String(out.interface ?? '')} ${out.method} ${outcome}${data} (${how.join(', ')})`.trimStart();
    for (const field of CALL_FIELDS) delete out[field];
    return out;
  }
  if (context !== undefined && !UNNAMED_CONTEXTS.has(context)) out.msg = `${context}: ${String(out.msg ?? '')}`;
  return out;
}

let stdoutGone = false;

/**
 * Writes to stdout, and stops writing once whoever read it went away (a closed pipe: EPIPE) instead
 * of failing, as pino's own JSON destination does: the gateway keeps serving.
 */
function stdoutWriter(): (text: string) => void {
  if (process.stdout.listenerCount('error') === 0) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
      stdoutGone = true;
    });
  }
  return (text) => {
    if (!stdoutGone && !process.stdout.destroyed) process.stdout.write(text);
  };
}

export interface PlainDestinationOptions {
  readonly color: boolean;
  /** Where the text goes; stdout by default (synchronous on a terminal and a pipe, so lines keep their order). */
  readonly write?: (text: string) => void;
}

/**
 * A pino destination that prints each JSON line as a readable one (pino-pretty's formatter, in the
 * process: `[18:57:16.001] WARN: evm eth_foo → -32601 …`). For a terminal, where a person reads: a
 * line that is not JSON is passed through untouched.
 */
export function createPlainDestination(options: PlainDestinationOptions): DestinationStream {
  const prettify = prettyFactory({
    colorize: options.color,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name',
    singleLine: true,
  });
  const write = options.write ?? stdoutWriter();
  return {
    write(chunk: string): void {
      for (const text of chunk.split('\n')) {
        if (text === '') continue;
        let line: unknown;
        try {
          line = JSON.parse(text);
        } catch {
          write(`${text}\n`);
          continue;
        }
        write(typeof line === 'object' && line !== null ? prettify(readableLine(line as Record<string, unknown>)) : `${text}\n`);
      }
    },
  };
}
