import type { MethodSpec } from './method-spec';

/** The methods of one surface, by name. Modules register at start-up; plugins use the same door. */
export class MethodRegistry {
  private readonly methods = new Map<string, MethodSpec>();

  register(spec: MethodSpec): void {
    if (this.methods.has(spec.name)) throw new Error(`method ${spec.name} is already registered`);
    this.methods.set(spec.name, spec);
  }

  registerAll(specs: readonly MethodSpec[]): void {
    for (const spec of specs) this.register(spec);
  }

  get(name: string): MethodSpec | undefined {
    return this.methods.get(name);
  }

  /** Changes nothing when called: an idempotent method, or an unknown one (it only gets an error). */
  isRead(name: string): boolean {
    const spec = this.methods.get(name);
    return spec === undefined || spec.idempotent === true;
  }

  has(name: string): boolean {
    return this.methods.has(name);
  }

  list(): MethodSpec[] {
    return [...this.methods.values()];
  }
}
