import type { IncomingMessage } from 'node:http';
import { traceLogFields, tracingOn } from '../tracing/spans';
import { pino, stdTimeFunctions, type DestinationStream, type Level, type LevelWithSilent, type LogFn, type Logger } from 'pino';

export type LogLevel = LevelWithSilent;

/** What never reaches a log line, whatever logs a request or an error. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'params',
  'tx',
];

/**
 * Nest's own contexts, whose info lines are framework chatter ("Starting Nest application...",
 * "XModule dependencies initialized"): they are logged at debug instead. Their warnings and errors
 * keep their level.
 */
export const FRAMEWORK_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'NestApplication',
  'NestApplicationContext',
  'RoutesResolver',
  'RouterExplorer',
]);

const INFO = 30;

function isFrameworkChatter(first: unknown): boolean {
  if (typeof first !== 'object' || first === null) return false;
  const context = (first as { context?: unknown }).context;
  return typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context);
}

/**
 * The process's one pino logger: JSON lines with an ISO time and the level's name. Nest logs through
 * it (nestjs-pino), and so does the RequestLog. The destination decides how a line looks: stdout as
 * JSON by default, or a plain-text destination (plain-output.ts) on a terminal.
 */
export function createGatewayLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    timestamp: stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label as Level }) },
    base: { pid: process.pid, name: 'rpc-gateway' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // The trace and span ids of the call (or block, or delivery) a line is written in, while tracing is on.
    mixin: tracingOn() ? traceLogFields : undefined,
    hooks: {
      logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn, levelValue: number): void {
        if (levelValue === INFO && isFrameworkChatter(args[0])) {
          (this.debug as (...a: unknown[]) => void).apply(this, args);
          return;
        }
        (method as (...a: unknown[]) => void).apply(this, args);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** A client's own correlation id is kept when it is short and printable; otherwise one is made. */
const CLIENT_REQUEST_ID = /^[\w.:@/+=-]{1,64}$/;

/** Request ids: the client's `X-Request-Id` when sane, else `<process tag>-<counter>` (unique per process run). */
export function requestIdGenerator(): (req: IncomingMessage) => string {
  const tag = Date.now().toString(36);
  let next = 0;
  return (req) => {
    const given = req.headers['x-request-id'];
    if (typeof given === 'string' && CLIENT_REQUEST_ID.test(given)) return given;
    next = (next + 1) % Number.MAX_SAFE_INTEGER;
    return `${tag}-${next.toString(36)}`;
  };
}
