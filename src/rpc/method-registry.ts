import type { AnyMethod } from './method';

/**
 * The methods of one interface, by name. Built-in modules and plugins register through the same
 * door (`registerMethods`), so every method gets the same guards, codecs, caching and metrics.
 */
export class MethodRegistry {
  private readonly methods = new Map<string, AnyMethod>();
  private readonly owners = new Map<string, string>();

  /** `owner` names who registers (a module or a plugin), for the clash message. */
  register(method: AnyMethod, owner = 'built-in'): void {
    const existing = this.owners.get(method.name);
    if (existing !== undefined) throw new Error(`method ${method.name} is already registered by ${existing}`);
    this.methods.set(method.name, method);
    this.owners.set(method.name, owner);
  }

  registerAll(methods: readonly AnyMethod[], owner?: string): void {
    for (const method of methods) this.register(method, owner);
  }

  get(name: string): AnyMethod | undefined {
    return this.methods.get(name);
  }

  has(name: string): boolean {
    return this.methods.has(name);
  }

  /** Who registered a method (`built-in` or a plugin's name). */
  ownerOf(name: string): string | undefined {
    return this.owners.get(name);
  }

  /** Changes nothing when called: an idempotent method, or an unknown one (it only gets an error). */
  isRead(name: string): boolean {
    const method = this.methods.get(name);
    return method === undefined || method.idempotent === true;
  }

  list(): AnyMethod[] {
    return [...this.methods.values()];
  }

  /** The groups (namespaces, categories) that have at least one method. */
  groups(): Set<string> {
    return new Set(this.list().map((m) => m.group));
  }
}
