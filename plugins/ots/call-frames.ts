/**
 * Otterscan's views of a transaction, made from the backend's callTracer tree (go-ethereum's
 * callFrame: type, from, to, value, input, output, error, calls):
 *
 * - the trace: every frame, depth-first in the order entered, as `{type, depth, from, to, value,
 *   input, output}` (depth 0 is the transaction itself; value is null for STATICCALL and
 *   DELEGATECALL; calls to precompiles are left out, as erigon leaves them);
 * - the internal operations: below the transaction's own frame, each CALL that moves ETH (type 0),
 *   SELFDESTRUCT (1), CREATE (2) and CREATE2 (3), as `{type, from, to, value}`;
 * - the revert data of the transaction's own frame.
 *
 * A failed creation has no address in the callTracer (go-ethereum drops it): its `to` is the zero
 * address here, unless the caller names it (traces.ts does for a failed deployment transaction).
 */
import type { Json, JsonObject } from 'rpc-gateway/plugin-api';

export interface CallFrame {
  readonly type: string;
  readonly from: string;
  readonly to?: string;
  readonly value?: string;
  readonly input?: string;
  readonly output?: string;
  readonly error?: string;
  readonly calls?: readonly CallFrame[];
}

export interface TraceEntry extends JsonObject {
  type: string;
  depth: number;
  from: string;
  to: string;
  value: string | null;
  input: string;
  output: string;
}

export const OperationType = { TRANSFER: 0, SELF_DESTRUCT: 1, CREATE: 2, CREATE2: 3 } as const;

export interface InternalOperation extends JsonObject {
  type: number;
  from: string;
  to: string;
  value: string;
}

const ZERO_ADDRESS = '0x' + '00'.repeat(20);
/** The precompiled contracts of the Cancun rules: 0x01 (ecrecover) to 0x0a (point evaluation). */
const LAST_PRECOMPILE = 0x0a;
const NO_VALUE = new Set(['STATICCALL', 'DELEGATECALL']);
const EXECUTION_REVERTED = 'execution reverted';

/** The top frame of a callTracer result, checked for the fields every frame has. */
export function callFrameOf(result: Json): CallFrame {
  if (!isFrame(result)) throw new Error('the backend answered a callTracer trace without a call frame');
  return result;
}

function isFrame(value: Json | undefined): value is CallFrame & JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value.type === 'string' && typeof value.from === 'string';
}

export function traceEntries(top: CallFrame): TraceEntry[] {
  const entries: TraceEntry[] = [];
  const visit = (frame: CallFrame, depth: number): void => {
    if (!(depth > 0 && isPrecompile(frame.to))) {
      entries.push({
        type: frame.type,
        depth,
        from: frame.from,
        to: frame.to ?? ZERO_ADDRESS,
        value: NO_VALUE.has(frame.type) ? null : (frame.value ?? '0x0'),
        input: frame.input ?? '0x',
        output: frame.output ?? '0x',
      });
    }
    for (const call of frame.calls ?? []) visit(call, depth + 1);
  };
  visit(top, 0);
  return entries;
}

export function internalOperations(top: CallFrame): InternalOperation[] {
  const operations: InternalOperation[] = [];
  const visit = (frame: CallFrame): void => {
    const type = operationType(frame);
    if (type !== undefined) operations.push({ type, from: frame.from, to: frame.to ?? ZERO_ADDRESS, value: frame.value ?? '0x0' });
    for (const call of frame.calls ?? []) visit(call);
  };
  for (const call of top.calls ?? []) visit(call);
  return operations;
}

function operationType(frame: CallFrame): number | undefined {
  switch (frame.type) {
    case 'CALL':
      return frame.value !== undefined && BigInt(frame.value) !== 0n ? OperationType.TRANSFER : undefined;
    case 'SELFDESTRUCT':
      return OperationType.SELF_DESTRUCT;
    case 'CREATE':
      return OperationType.CREATE;
    case 'CREATE2':
      return OperationType.CREATE2;
    default:
      return undefined;
  }
}

/** What the transaction's revert returned; `0x` when it succeeded, or failed otherwise than by a revert. */
export function revertData(top: CallFrame): string {
  return top.error === EXECUTION_REVERTED ? (top.output ?? '0x') : '0x';
}

function isPrecompile(address: string | undefined): boolean {
  if (address === undefined || !/^0x0{38}[0-9a-f]{2}$/i.test(address)) return false;
  const n = parseInt(address.slice(-2), 16);
  return n >= 1 && n <= LAST_PRECOMPILE;
}
