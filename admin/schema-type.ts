// The TypeScript type of a JSON Schema written `as const`: what a value is once ajv has checked it
// against the schema, so an admin route's answer reads its query and body without a cast and
// returns what its response schema describes (api-route.ts). It reads the parts of JSON Schema
// 2020-12 the admin API's schemas use, as scripts/schema-types.ts does for schemas/: `type` (one or
// a list), `const`, `enum`, `anyOf`, `allOf`, `$ref` to a named component, objects' `properties`
// and `required`, arrays' `items`. What only narrows a value (minLength, minimum, pattern, format)
// is the validator's to check; a schema with none of these (a description alone) is `unknown`.
//
// Objects are closed here although no schema forbids other members (api-schemas.ts): a type with
// an index signature would refuse every interface the operations answer with, and members a
// schema does not name are ones a handler must not rely on.

/** The types named by `type`. */
interface Primitives {
  string: string;
  number: number;
  integer: number;
  boolean: boolean;
  null: null;
}

/** Schemas by name, for `$ref: '#/components/schemas/<name>'`. */
type Components = { readonly [name: string]: unknown };

export type SchemaType<Schema, Named extends Components> = Schema extends { readonly $ref: `#/components/schemas/${infer Name}` }
  ? Name extends keyof Named
    ? SchemaType<Named[Name], Named>
    : never
  : Schema extends { readonly const: infer Value }
    ? Value
    : Schema extends { readonly enum: ReadonlyArray<infer Value> }
      ? Value
      : Schema extends { readonly anyOf: ReadonlyArray<infer Member> }
        ? AnyOf<Member, Named>
        : Schema extends { readonly allOf: infer Members }
          ? AllOf<Members, Named>
          : Schema extends { readonly type: infer Type }
            ? Typed<Type extends ReadonlyArray<infer One> ? One : Type, Schema, Named>
            : unknown;

/** Distributes over the members: one type per member. */
type AnyOf<Member, Named extends Components> = Member extends unknown ? SchemaType<Member, Named> : never;

type AllOf<Members, Named extends Components> = Members extends readonly [infer First, ...infer Rest] ? SchemaType<First, Named> & AllOf<Rest, Named> : unknown;

/** Distributes over a list of types: `['string', 'null']` is `string | null`. */
type Typed<Type, Schema, Named extends Components> = Type extends 'array'
  ? Schema extends { readonly items: infer Items }
    ? SchemaType<Items, Named>[]
    : unknown[]
  : Type extends 'object'
    ? ObjectType<Schema, Named>
    : Type extends keyof Primitives
      ? Primitives[Type]
      : never;

type RequiredNames<Schema> = Schema extends { readonly required: ReadonlyArray<infer Name> } ? Name : never;

/** One object type, its required members first: what an editor shows on hover. */
type Flat<T> = { [Name in keyof T]: T[Name] } & {};

type ObjectType<Schema, Named extends Components> = Schema extends { readonly properties: infer Properties }
  ? Flat<
      { -readonly [Name in keyof Properties & RequiredNames<Schema>]: SchemaType<Properties[Name], Named> } & {
        -readonly [Name in Exclude<keyof Properties, RequiredNames<Schema>>]?: SchemaType<Properties[Name], Named>;
      }
    >
  : Record<string, unknown>;
