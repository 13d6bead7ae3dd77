/**
 * The bytes a trace's JSON may take (`[json-rpc] trace-response-max-size`), shared by every tracer of
 * one call (the txs of a block too). Tracers add what each entry or frame will take once written
 * (an estimate from the lengths they already hold, never a serialisation); the VM's next event then
 * stops the execution, so a trace never holds much more than the budget.
 */
export class TraceTooLarge extends Error {
  override readonly name = 'TraceTooLarge';
}

export class TraceBudget {
  private used = 0;

  /** `max` bytes; 0 = unlimited. */
  constructor(private readonly max: number) {}

  static unlimited(): TraceBudget {
    return new TraceBudget(0);
  }

  add(bytes: number): void {
    this.used += bytes;
  }

  get exceeded(): boolean {
    return this.max > 0 && this.used > this.max;
  }

  /** Throws (from inside a VM event, which stops the execution) once the budget is spent. */
  check(): void {
    if (this.exceeded) throw new TraceTooLarge(`trace output over ${this.max} bytes`);
  }
}
