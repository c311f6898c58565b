import { countsFrom, type ScriptLifecycle, type SourceCounts } from '../../sources/lifecycle.js';
import type { KeySpace } from '../keys.js';

/**
 * The typed contract with the store's Lua scripts, after BullMQ's
 * `scripts.ts`: each command is declared once with the names of its KEYS, an
 * argument builder and the shape of every reply it can give. Arguments go
 * by one convention: the KEYS in declared order, then a single JSON payload
 * as ARGV[1] that the script decodes (`local p = cjson.decode(ARGV[1])`).
 * Each script's header declares the same replies (`Output: {'ok', run} |
 * {'missing'}`), and a unit test holds the two together.
 */

/**
 * How one reply field is read: a number, a string, or every value left
 * (`...name` in the header) as strings (`rest`), as field/value pairs
 * (`record`, as HGETALL gives them), as a knowledge base's counts in the
 * order of SOURCE_STATUSES (`counts`), or as rows of the named fields
 * (`{ rows: [...] }`, each row that many values in a row).
 */
export type FieldKind = 'int' | 'str' | 'rest' | 'record' | 'counts' | { readonly rows: readonly string[] };

/** Whether a field takes every value left (written `...name` in the script's header). */
export function takesRest(kind: FieldKind): boolean {
  return kind !== 'int' && kind !== 'str';
}

/** The replies a script can give: its first value (the tag) to its further fields, in order. */
export type ReplySpec = Readonly<Record<string, Readonly<Record<string, FieldKind>>>>;

type FieldType<K extends FieldKind> = K extends 'int'
  ? number
  : K extends 'str'
    ? string
    : K extends 'rest'
      ? string[]
      : K extends 'record'
        ? Record<string, string>
        : K extends 'counts'
          ? SourceCounts
          : K extends { readonly rows: readonly (infer N extends string)[] }
            ? Record<N, string>[]
            : never;

/** A parsed reply: `{ kind: tag, ...fields }`, one member per declared tag. */
export type Reply<S extends ReplySpec> = {
  [T in keyof S & string]: { kind: T } & { -readonly [F in keyof S[T]]: FieldType<S[T][F]> };
}[keyof S & string];

/** One Lua command of the store. */
export interface ScriptDef<In, K extends string, S extends ReplySpec> {
  /** The command's name on the connection (ioredis `defineCommand`). */
  name: string;
  /** The file under `lua/`, without `.lua`. */
  file: string;
  /** The KEYS, by name, in the order the script reads them. */
  keys: readonly K[];
  /** Object in, named keys and the JSON payload out. */
  build(input: In, keys: KeySpace): { keys: Record<K, string>; args: Record<string, unknown> };
  replies: S;
  /**
   * The families of source and site moves the script makes (see
   * `shared/sources/lifecycle.ts`); its generated helpers refuse any other
   * move at run time. None: it moves nothing.
   */
  lifecycle?: ScriptLifecycle;
}

/** Declares a script (an identity function that keeps its types precise). */
export function defineScript<In, const K extends string, const S extends ReplySpec>(def: ScriptDef<In, K, S>): ScriptDef<In, K, S> {
  return def;
}

/** Reads a raw script reply by the declaration; a tag it does not declare is a bug, thrown as such. */
export function parseReply<S extends ReplySpec>(name: string, replies: S, raw: unknown): Reply<S> {
  const values = Array.isArray(raw) ? raw : [raw];
  const kind = String(values[0]);
  const fields = replies[kind];
  if (!fields) throw new Error(`${name} gave the undeclared reply '${kind}'`);
  const out: Record<string, unknown> = { kind };
  Object.entries(fields).forEach(([field, how], i) => {
    const v = values[i + 1];
    out[field] = takesRest(how) ? readRest(how, values.slice(i + 1).map(String)) : how === 'int' ? Number(v) : v === undefined || v === null ? '' : String(v);
  });
  return out as Reply<S>;
}

/** Every value left, read as `how` says; a torn last row or pair is left out. */
function readRest(how: FieldKind, rest: string[]): unknown {
  if (how === 'counts') return countsFrom(rest);
  if (how === 'record') {
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < rest.length; i += 2) record[rest[i]!] = rest[i + 1]!;
    return record;
  }
  if (typeof how === 'object') {
    const width = how.rows.length;
    const rows: Record<string, string>[] = [];
    for (let i = 0; i + width <= rest.length; i += width) rows.push(Object.fromEntries(how.rows.map((name, j) => [name, rest[i + j]!])));
    return rows;
  }
  return rest;
}

/** The flat KEYS-then-ARGV list a command is called with. */
export function scriptArgs<In, K extends string>(def: ScriptDef<In, K, ReplySpec>, input: In, keySpace: KeySpace): string[] {
  const { keys, args } = def.build(input, keySpace);
  return [...def.keys.map((k) => keys[k]), JSON.stringify(args)];
}
