/**
 * A small JSON Schema validator for the part of the language the execution-apis YAML uses: `$ref`
 * (to `#/components/schemas/<name>`), `type` (one or a list), `properties`, `required`,
 * `additionalProperties` (false or a schema), `patternProperties`, `items`, `oneOf`, `anyOf`, `allOf`,
 * `not`, `pattern`, `enum`, `const`, `minimum`, `maximum`. Annotations (`title`, `description`, …) are
 * ignored. It answers the list of failures, each with its JSON path (empty: valid).
 */
export type Schema = { [keyword: string]: unknown };

export class SchemaValidator {
  constructor(private readonly components: Record<string, Schema>) {}

  /** The failures of `value` against `schema`; [] when it is valid. */
  validate(value: unknown, schema: Schema, path = '$'): string[] {
    if (typeof schema.$ref === 'string') {
      const errors = this.validate(value, this.resolve(schema.$ref), path);
      if (errors.length > 0) return errors;
    }
    const errors: string[] = [];
    const fail = (message: string) => errors.push(`${path}: ${message}`);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      if (!types.some((t) => hasType(value, t))) {
        fail(`${describe(value)} is not of type ${types.join('|')}`);
        return errors;
      }
    }
    if (schema.enum !== undefined && !(schema.enum as unknown[]).some((e) => same(e, value))) fail(`${describe(value)} is not one of ${JSON.stringify(schema.enum)}`);
    if (schema.const !== undefined && !same(schema.const, value)) fail(`${describe(value)} is not ${JSON.stringify(schema.const)}`);
    if (typeof value === 'string' && typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) fail(`${JSON.stringify(value)} does not match ${schema.pattern}`);
    if (typeof value === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) fail(`${value} < ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && value > schema.maximum) fail(`${value} > ${schema.maximum}`);
    }
    if (isObject(value)) errors.push(...this.object(value, schema, path));
    if (Array.isArray(value) && isObject(schema.items)) value.forEach((item, i) => errors.push(...this.validate(item, schema.items as Schema, `${path}[${i}]`)));
    if (Array.isArray(schema.allOf)) for (const part of schema.allOf as Schema[]) errors.push(...this.validate(value, part, path));
    if (Array.isArray(schema.anyOf)) {
      const results = (schema.anyOf as Schema[]).map((s) => this.validate(value, s, path));
      if (!results.some((r) => r.length === 0)) fail(`matches none of anyOf: ${closest(results)}`);
    }
    if (Array.isArray(schema.oneOf)) {
      const results = (schema.oneOf as Schema[]).map((s) => this.validate(value, s, path));
      const matches = results.filter((r) => r.length === 0).length;
      if (matches === 0) fail(`matches none of oneOf: ${closest(results)}`);
      if (matches > 1) fail(`matches ${matches} of oneOf`);
    }
    if (isObject(schema.not) && this.validate(value, schema.not as Schema, path).length === 0) fail('matches a `not` schema');
    return errors;
  }

  resolve(ref: string): Schema {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    const found = match === null ? undefined : this.components[match[1]];
    if (found === undefined) throw new Error(`unresolved $ref ${ref}`);
    return found;
  }

  private object(value: Record<string, unknown>, schema: Schema, path: string): string[] {
    const errors: string[] = [];
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>).map(([p, s]) => [new RegExp(p, 'u'), s] as const);
    for (const key of (schema.required ?? []) as string[]) if (!(key in value)) errors.push(`${path}: missing required ${key}`);
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}.${key}`;
      let known = false;
      if (properties[key] !== undefined) {
        known = true;
        errors.push(...this.validate(item, properties[key], at));
      }
      for (const [pattern, s] of patterns) {
        if (!pattern.test(key)) continue;
        known = true;
        errors.push(...this.validate(item, s, at));
      }
      if (known) continue;
      if (schema.additionalProperties === false) errors.push(`${at}: not allowed (additionalProperties: false)`);
      else if (isObject(schema.additionalProperties)) errors.push(...this.validate(item, schema.additionalProperties as Schema, at));
    }
    return errors;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      throw new Error(`unknown JSON Schema type ${type}`);
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
}

/** The failures of the alternative that came closest (fewest failures), to say why none matched. */
function closest(results: string[][]): string {
  // An alternative of another type (null beside an object) says least about why.
  const sameType = results.filter((r) => !/^\$[^ ]*: .* is not of type /.test(r[0] ?? '') || r.length > 1);
  const best = (sameType.length > 0 ? sameType : results).reduce((a, b) => (b.length < a.length ? b : a));
  return best.slice(0, 3).join('; ');
}
