import type { ParamDecoder } from '../../rpc/dispatcher';
import { InvalidParamsError } from '../../rpc/errors';
import type { MethodArgs, MethodSpec } from '../../rpc/method-spec';
import { CodecError } from './codec-error';
import { decodeParam, type EvmParamType } from './param-types';

/**
 * go-ethereum's positional arguments: `params` absent or null = no arguments; anything but an array
 * is `non-array args`; an optional (pointer) argument may be left out or null; a required one may
 * not be left out, and a null is decoded as Go decodes it.
 */
export class EvmParamDecoder implements ParamDecoder {
  decode(spec: MethodSpec, params: unknown): MethodArgs {
    if (params === undefined || params === null) params = [];
    if (!Array.isArray(params)) throw new InvalidParamsError('non-array args');
    const values = params as unknown[];
    const args: MethodArgs = {};
    values.forEach((value, i) => {
      const param = spec.params[i];
      if (!param) throw new InvalidParamsError(`too many arguments, want at most ${spec.params.length}`);
      if (value === null && param.optional) return;
      try {
        args[param.name] = decodeParam(param.type as EvmParamType, value);
      } catch (err) {
        if (err instanceof CodecError) throw new InvalidParamsError(`invalid argument ${i}: ${err.message}`);
        throw err;
      }
    });
    for (let i = values.length; i < spec.params.length; i++) {
      if (!spec.params[i].optional) throw new InvalidParamsError(`missing value for required argument ${i}`);
    }
    return args;
  }
}
