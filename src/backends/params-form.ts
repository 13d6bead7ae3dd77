/**
 * How an interface writes decoded arguments as JSON-RPC params (the node RPC by name, the EVM by
 * position), and the key of a call that both backends cache a computed or devnet answer under: its
 * method and its params in that canonical form.
 */
import type { Json } from '../rpc/json';
import type { AnyMethod, MethodArgs } from '../rpc/method';

export interface ParamsForm {
  encode(method: AnyMethod, args: MethodArgs): Json;
  /** `{}` for the node RPC, `[]` for the EVM. */
  readonly none: Json;
}

/** The cache key of a call: its method and its params as `form` writes them. */
export function callKey(form: ParamsForm, method: AnyMethod, args: MethodArgs): string {
  return `${method.name}${JSON.stringify(form.encode(method, args))}`;
}

/** Decoded args in their JSON-RPC form, by name (left-out ones stay out): the node RPC's form. */
export const namedParams: ParamsForm = {
  none: {},
  encode(method, args) {
    const params: Record<string, Json> = {};
    for (const p of method.params) {
      const value = args[p.name];
      if (value !== undefined && p.codec.encode) params[p.name] = p.codec.encode(value as never);
    }
    return params;
  },
};

/**
 * Decoded args in their JSON-RPC form, by position (the EVM's form): trailing left-out params are not
 * sent, a left-out one before a given one is null (go-ethereum's reading of an absent optional param).
 */
export const positionalParams: ParamsForm = {
  none: [],
  encode(method, args) {
    const params: Json[] = [];
    let sent = 0;
    for (const p of method.params) {
      const value = args[p.name];
      if (value === undefined) {
        params.push(null);
        continue;
      }
      if (!p.codec.encode) throw new Error(`${method.name}: parameter ${p.name} has no JSON-RPC form`);
      params.push(p.codec.encode(value as never));
      sent = params.length;
    }
    return params.slice(0, sent);
  },
};
