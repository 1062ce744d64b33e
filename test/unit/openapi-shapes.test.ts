// The OpenAPI document describes each response shape the app and the SDK read: the run
// results, the run comparison and the authoring checkpoint carry their schemas, not an open `{}`, so the generated
// types are the one declaration clients use. The checkpoint is one named component every session answer references, and
// a record of T is written `additionalProperties: T`, so generated types have neither copies nor `unknown | T` keys.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { buildOpenApi } from '../../api/openapi.ts';
import { createLogger } from '../../runtime/logger.ts';
import { loadConfig } from '../../runtime/config.ts';
import type { Db } from '../../store/db.ts';

type Schema = Record<string, any>;

/** What a field is allowed to leave open, and why. */
const OPEN_ALLOWED: Record<string, string> = {
  '/world/spec': 'a drafted world may be invalid (validation says why): an object, its schema at /v1/schemas/WorldSpec',
};

const CONSTRAINING = ['type', 'anyOf', 'oneOf', 'allOf', 'const', 'enum', '$ref', 'not'];

type Document = { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };

/** JSON pointers under `schema` where any value (or any object) would fit; `$ref`s are followed into `components`. */
function openPlaces(schema: Schema, at = '', components: Record<string, Schema> = {}): string[] {
  if (Object.keys(OPEN_ALLOWED).some((allowed) => at.endsWith(allowed))) return [];
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref) : null;
  if (ref) return components[ref[1]!] ? openPlaces(components[ref[1]!]!, at, components) : [`${at || '/'} ($ref ${schema.$ref} is missing)`];
  if (!CONSTRAINING.some((keyword) => keyword in schema)) return [at || '/'];
  const described =
    Object.keys(schema.properties ?? {}).length > 0 ||
    Object.keys(schema.patternProperties ?? {}).length > 0 ||
    typeof schema.additionalProperties === 'object';
  const open = schema.type === 'object' && !described ? [at || '/'] : [];
  const children: Array<[string, Schema]> = [
    ...Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, child]): [string, Schema] => [`${at}/${name}`, child]),
    ...Object.values((schema.patternProperties ?? {}) as Record<string, Schema>).map((child): [string, Schema] => [`${at}/*`, child]),
    ...(typeof schema.additionalProperties === 'object' ? [[`${at}/*`, schema.additionalProperties] as [string, Schema]] : []),
    ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((keyword) => ((schema[keyword] ?? []) as Schema[]).map((child): [string, Schema] => [at, child])),
    ...(schema.items ? [[`${at}/[]`, schema.items] as [string, Schema]] : []),
  ];
  return [...open, ...children.flatMap(([path, child]) => openPlaces(child, path, components))];
}

function documentOf(): Document {
  const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
  const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
  return buildOpenApi(routes, null) as Document;
}

/** The success answer's schema of one operation. */
function successSchema(document: Document, operation_id: string): Schema {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId !== operation_id) continue;
      const [, success] = Object.entries(operation.responses as Record<string, Schema>).find(([status]) => status.startsWith('2'))!;
      return success.content['application/json'].schema;
    }
  }
  throw new Error(`no operation ${operation_id}`);
}

const FIELDS: Record<string, string[]> = {
  getRunResults: ['manifest', 'metrics', 'findings', 'cost_report', 'replication_counts'],
  compareRun: ['metrics'],
  getAuthoringSession: ['checkpoint', 'ai_limits'],
  createAuthoringSession: ['checkpoint'],
  answerAuthoringSession: ['checkpoint'],
  reviseAuthoringSession: ['checkpoint'],
  approveAuthoringSession: ['checkpoint'],
};

describe('the OpenAPI document', () => {
  const document = documentOf();

  it.each(Object.entries(FIELDS))('describes every field %s answers with (no open {} where a client reads)', (operation_id, fields) => {
    const schema = successSchema(document, operation_id);
    for (const field of fields) {
      const property = schema.properties[field] as Schema;
      expect(property, `${operation_id} ${field}`).toBeDefined();
      expect(openPlaces(property, `/${field}`, document.components.schemas), `${operation_id}: open places`).toEqual([]);
    }
  });

  it('describes the checkpoint in the session listing the same way (null there)', () => {
    const item = successSchema(document, 'listAuthoringSessions').properties.data.items as Schema;
    expect(item.properties.checkpoint).toEqual(successSchema(document, 'getAuthoringSession').properties.checkpoint);
  });

  it('declares the checkpoint once, as a component every session answer references', () => {
    const checkpoint = { $ref: '#/components/schemas/Checkpoint' };
    for (const operation_id of Object.keys(FIELDS).filter((id) => id.endsWith('AuthoringSession'))) {
      expect(successSchema(document, operation_id).properties.checkpoint.anyOf, operation_id).toContainEqual(checkpoint);
    }
    expect(document.components.schemas.Checkpoint!.properties.changes_since_previous).toBeDefined();
    // No inline copy anywhere else: the checkpoint's own fields appear only in the component.
    const text = JSON.stringify({ ...document, components: { ...document.components, schemas: { ...document.components.schemas, Checkpoint: null } } });
    expect(text).not.toContain('changes_since_previous');
  });

  it('writes every record of T as additionalProperties: T (no any-key patternProperties left open)', () => {
    const places: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (!value || typeof value !== 'object') return;
      const schema = value as Schema;
      if (schema.patternProperties?.['^.*$'] !== undefined) places.push(at);
      for (const [key, child] of Object.entries(schema)) walk(child, `${at}/${key}`);
    };
    walk(document, '');
    expect(places).toEqual([]);
    const estimate = document.paths['/v1/runs/estimate']!.post.responses['200'].content['application/json'].schema;
    expect(estimate.properties.events_per_replication_estimate).toMatchObject({ type: 'object', additionalProperties: { type: 'integer', minimum: 0 } });
  });

  it('finds an open place: an unknown field, an object without properties, an unknown array item, an open object', () => {
    const open = { type: 'object', properties: {}, additionalProperties: true };
    expect(openPlaces({ type: 'object', properties: { a: {}, b: { type: 'object' }, c: { type: 'array', items: { description: 'x' } }, d: open } })).toEqual([
      '/a',
      '/b',
      '/c/[]',
      '/d',
    ]);
  });
});
