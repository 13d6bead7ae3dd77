import { toBeHex } from 'ethers';
import { errorOf } from './harness';
import { compileProbe, EvmHarness, LATEST, NO_LIMITS, at, startEvmDevnet } from './evm-harness';

type Obj = Record<string, any>;
const word = (n: number): string => n.toString(16).padStart(64, '0');

describe('embedded devnet: debug tracing', () => {
  let h: EvmHarness;
  let first: string;
  let second: string;
  let bumpA: string;
  let bumpB: string;
  let relay: string;
  let height: bigint;
  const { abi } = compileProbe();
  const sender = (i: number): string => h.wallets[i].address.toLowerCase();

  beforeAll(async () => {
    h = await startEvmDevnet();
    first = await h.deployProbe(h.wallets[0], 10n);
    second = await h.deployProbe(h.wallets[0], 20n);
    // One block: two bumps of the same contract, then a relayed bump.
    bumpA = await h.send(h.wallets[1], { to: first, data: abi.encodeFunctionData('bump', ['a']) });
    bumpB = await h.send(h.wallets[2], { to: first, data: abi.encodeFunctionData('bump', ['b']) });
    relay = await h.send(h.wallets[3], { to: first, data: abi.encodeFunctionData('relay', [second, 'via first']) });
    await h.nextBlock();
    height = h.backend.devnet.latestHeight;
    // Later state must not leak into the traces of that block.
    await h.send(h.wallets[1], { to: first, data: abi.encodeFunctionData('bump', ['later']) });
    await h.nextBlock();
  });
  afterAll(() => h.stop());

  it('traces a mined tx with the struct logger, on the state its block started from', async () => {
    const receipt = (await h.evm.getTransactionReceipt(bumpB)) as Obj;
    const trace = (await h.evm.traceTransaction(bumpB, {})) as Obj;
    expect(Object.keys(trace)).toEqual(['gas', 'failed', 'returnValue', 'structLogs']);
    expect(trace.gas).toBe(Number(BigInt(receipt.gasUsed)));
    expect(trace.failed).toBe(false);
    // bump returns the new count: 10 + 1 (bumpA, earlier in the block) + 1.
    expect(trace.returnValue).toBe(word(12));
    const logs = trace.structLogs as Obj[];
    expect(logs[0]).toEqual({ pc: 0, op: 'PUSH1', gas: expect.any(Number), gasCost: 3, depth: 1, stack: [] });
    expect(logs[1].stack).toEqual(['0x80']);
    expect(logs.every((l) => l.depth === 1 && l.memory === undefined)).toBe(true);
    const sload = logs.find((l) => l.op === 'SLOAD')!;
    expect(sload.storage).toEqual({ [word(0)]: word(11) });
    const sstore = logs.find((l) => l.op === 'SSTORE')!;
    expect(sstore.storage).toEqual({ [word(0)]: word(12) });
    expect(logs.some((l) => l.op === 'LOG3')).toBe(true);
    expect(logs[logs.length - 1].op).toBe('RETURN');
  });

  it('honours the struct logger options', async () => {
    const trace = (await h.evm.traceTransaction(bumpA, { disableStack: true, disableStorage: true, enableMemory: true })) as Obj;
    const logs = trace.structLogs as Obj[];
    expect(logs.every((l) => l.stack === undefined && l.storage === undefined && Array.isArray(l.memory))).toBe(true);
    // Memory as it is before each opcode: empty until PUSH1 0x80 PUSH1 0x40 MSTORE has run.
    expect(logs[2]).toMatchObject({ op: 'MSTORE', memory: [] });
    expect(logs[3].memory).toEqual([word(0), word(0), word(0x80)]);
  });

  it('traces the call tree with callTracer', async () => {
    const trace = (await h.evm.traceTransaction(relay, { tracer: 'callTracer' })) as Obj;
    const receipt = (await h.evm.getTransactionReceipt(relay)) as Obj;
    expect(Object.keys(trace)).toEqual(['type', 'from', 'gas', 'gasUsed', 'to', 'input', 'output', 'calls', 'value']);
    expect(trace).toMatchObject({
      type: 'CALL',
      from: sender(3),
      to: first,
      value: '0x0',
      gas: '0xf4240',
      gasUsed: receipt.gasUsed,
      input: abi.encodeFunctionData('relay', [second, 'via first']),
      output: toBeHex(21, 32),
    });
    expect(trace.calls).toEqual([
      {
        type: 'CALL',
        from: first,
        gas: expect.stringMatching(/^0x/),
        gasUsed: expect.stringMatching(/^0x/),
        to: second,
        input: abi.encodeFunctionData('bump', ['via first']),
        output: toBeHex(21, 32),
        value: '0x0',
      },
    ]);
    const onlyTop = (await h.evm.traceTransaction(relay, { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } })) as Obj;
    expect(onlyTop.calls).toBeUndefined();
    const withLog = (await h.evm.traceTransaction(relay, { tracer: 'callTracer', tracerConfig: { withLog: true } })) as Obj;
    expect(withLog.calls[0].logs).toEqual([
      expect.objectContaining({ address: second, position: '0x0', topics: expect.arrayContaining([toBeHex(21, 32)]) }),
    ]);
  });

  it('traces every tx of a block', async () => {
    const traces = (await h.evm.traceBlock(at(height), { tracer: 'callTracer' })) as Obj[];
    expect(traces.map((t) => t.txHash)).toEqual([bumpA, bumpB, relay]);
    expect(traces[1].result).toEqual(await h.evm.traceTransaction(bumpB, { tracer: 'callTracer' }));
    const hash = ((await h.evm.getBlockByNumber(at(height), false)) as Obj).hash as string;
    expect(await h.evm.traceBlock({ kind: 'hash', hash, requireCanonical: false }, { tracer: 'callTracer' })).toEqual(traces);
  });

  it('traces a call, with the revert reason of a failing one', async () => {
    const ok = (await h.evm.traceCall({ from: sender(4), to: first, input: abi.encodeFunctionData('count') }, LATEST, { tracer: 'callTracer' }, NO_LIMITS)) as Obj;
    expect(ok).toMatchObject({ type: 'CALL', from: sender(4), to: first, output: toBeHex(13, 32) });
    const failed = (await h.evm.traceCall({ to: first, input: abi.encodeFunctionData('fail') }, LATEST, { tracer: 'callTracer' }, NO_LIMITS)) as Obj;
    expect(failed).toMatchObject({ error: 'execution reverted', revertReason: 'probe says no' });
    const structured = (await h.evm.traceCall({ to: first, input: abi.encodeFunctionData('fail') }, LATEST, {}, NO_LIMITS)) as Obj;
    expect(structured.failed).toBe(true);
    expect(structured.structLogs[structured.structLogs.length - 1].op).toBe('REVERT');
  });

  it('refuses what it cannot trace', async () => {
    expect(await errorOf(h.evm.traceTransaction('0x' + '00'.repeat(32), {}))).toBe(`transaction 0x${'00'.repeat(32)} not found`);
    expect(await errorOf(h.evm.traceTransaction(bumpA, { tracer: 'prestateTracer' }))).toMatch(/^tracer "prestateTracer" is not supported/);
    expect(await errorOf(h.evm.traceTransaction(bumpA, { timeout: 'soon' }))).toBe('time: invalid duration "soon"');
    expect(
      await errorOf(h.evm.traceCall({ to: first, input: abi.encodeFunctionData('spin') }, LATEST, { timeout: '100ms' }, { gasCap: 10_000_000_000n, timeoutMs: 0 })),
    ).toBe('execution timeout');
  });
});
