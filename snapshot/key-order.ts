// The canonical order of an object's members, derived from the JSON Schemas: the order of each
// schema's `properties`, which is the order of the API's field tables (`id`, `name`, `slug`
// first, as people read them). Anyone holding the schemas can reproduce a body's bytes, and so
// its hash, by the rules in snapshot/canonical.ts:
//   - an object whose schema lists `properties` writes them in that order (absent optional ones
//     skipped) and may hold no other member;
//   - an object whose schema has no `properties` (a map, or no schema at all) writes its members
//     sorted by UTF-16 code units, as RFC 8785 does;
//   - `$ref` is followed, an array's order is its `items`' order, and `anyOf`/`oneOf` take the
//     branch that describes an object or an array (the others describe null or scalars).
import { readSchemaFiles, SCHEMA_SUFFIX, type SchemaDocument, type SchemaName } from './schema-catalog.ts';

export class KeyOrder {
  private constructor(
    /** Member names in schema order; undefined: sorted (RFC 8785). */
    readonly keys: readonly string[] | undefined,
    private readonly members: ReadonlyMap<string, KeyOrder>,
    /** The order of members the schema does not list by name (a map's values). */
    private readonly rest: KeyOrder | undefined,
    private readonly itemOrder: KeyOrder | undefined,
  ) {}

  /** RFC 8785 all the way down: for values without a schema (manifests, pointers). */
  static readonly SORTED: KeyOrder = new KeyOrder(undefined, new Map(), undefined, undefined);

  static listed(keys: readonly string[], members: ReadonlyMap<string, KeyOrder>): KeyOrder {
    return new KeyOrder(keys, members, undefined, undefined);
  }

  static map(values: KeyOrder): KeyOrder {
    return new KeyOrder(undefined, new Map(), values, undefined);
  }

  static array(items: KeyOrder): KeyOrder {
    return new KeyOrder(undefined, new Map(), undefined, items);
  }

  /** The order of the value of member `name`. */
  member(name: string): KeyOrder {
    return this.members.get(name) ?? this.rest ?? KeyOrder.SORTED;
  }

  /** The order of each item, when this describes an array. */
  get items(): KeyOrder {
    return this.itemOrder ?? KeyOrder.SORTED;
  }
}

/** Compiles the key order of every schema of a set of schema files, following $ref between them. */
class KeyOrders {
  private readonly compiled = new Map<SchemaDocument, KeyOrder>();

  constructor(private readonly files: ReadonlyMap<string, SchemaDocument>) {}

  of(name: SchemaName): KeyOrder {
    const file = this.files.get(`${name}${SCHEMA_SUFFIX}`);
    if (file === undefined) throw new Error(`no schema named ${name}`);
    return this.compile(file);
  }

  private compile(schema: SchemaDocument): KeyOrder {
    let order = this.compiled.get(schema);
    if (order === undefined) {
      order = this.derive(schema);
      this.compiled.set(schema, order);
    }
    return order;
  }

  private derive(schema: SchemaDocument): KeyOrder {
    if (schema.$ref !== undefined) {
      const target = this.files.get(schema.$ref);
      if (target === undefined) throw new Error(`schema reference ${schema.$ref} names no schema file`);
      return this.compile(target);
    }
    for (const branch of schema.anyOf ?? schema.oneOf ?? []) {
      const order = this.compile(branch);
      if (order !== KeyOrder.SORTED) return order;
    }
    if (schema.properties !== undefined) {
      const members = new Map(Object.entries(schema.properties).map(([name, member]) => [name, this.compile(member)] as const));
      return KeyOrder.listed(Object.keys(schema.properties), members);
    }
    const values = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : Object.values(schema.patternProperties ?? {})[0];
    if (values !== undefined) return KeyOrder.map(this.compile(values));
    if (schema.items !== undefined) return KeyOrder.array(this.compile(schema.items));
    return KeyOrder.SORTED;
  }
}

let shipped: KeyOrders | undefined;

/** The key order of one of the shipped schemas (schemas/), compiled on first use. */
export function keyOrderOf(name: SchemaName): KeyOrder {
  shipped ??= new KeyOrders(readSchemaFiles());
  return shipped.of(name);
}
