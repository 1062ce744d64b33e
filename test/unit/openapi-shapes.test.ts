// The OpenAPI document describes each response shape the app and the SDK read (issue 25, "each shape once"): the run
// results, the run comparison and the authoring checkpoint carry their schemas, not an open `{}`, so the generated
// types are the one declaration clients use.
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

/** JSON pointers under `schema` where any value (or any object) would fit. */
function openPlaces(schema: Schema, at = ''): string[] {
  if (Object.keys(OPEN_ALLOWED).some((allowed) => at.endsWith(allowed))) return [];
  if (!CONSTRAINING.some((keyword) => keyword in schema)) return [at || '/'];
  const described =
    Object.keys(schema.properties ?? {}).length > 0 ||
    Object.keys(schema.patternProperties ?? {}).length > 0 ||
    typeof schema.additionalProperties === 'object';
  const open = schema.type === 'object' && !described ? [at || '/'] : [];
  const children: Array<[string, Schema]> = [
    ...Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([name, child]): [string, Schema] => [`${at}/${name}`, child]),
    ...Object.values((schema.patternProperties ?? {}) as Record<string, Schema>).map((child): [string, Schema] => [`${at}/*`, child]),
    ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((keyword) => ((schema[keyword] ?? []) as Schema[]).map((child): [string, Schema] => [at, child])),
    ...(schema.items ? [[`${at}/[]`, schema.items] as [string, Schema]] : []),
  ];
  return [...open, ...children.flatMap(([path, child]) => openPlaces(child, path))];
}

function documentOf(): { paths: Record<string, Record<string, Schema>> } {
  const config = loadConfig({ SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), CRUCIBLE_SESSION_SECRET: randomBytes(32).toString('base64') });
  const { routes } = createApp({ config, db: {} as Db, logger: createLogger({ level: 'silent' }), temporal: null });
  return buildOpenApi(routes, null) as { paths: Record<string, Record<string, Schema>> };
}

/** The success answer's schema of one operation. */
function successSchema(document: { paths: Record<string, Record<string, Schema>> }, operation_id: string): Schema {
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
  getAuthoringSession: ['checkpoint'],
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
      expect(openPlaces(property, `/${field}`), `${operation_id}: open places`).toEqual([]);
    }
  });

  it('describes the checkpoint in the session listing the same way (null there)', () => {
    const item = successSchema(document, 'listAuthoringSessions').properties.data.items as Schema;
    expect(item.properties.checkpoint).toEqual(successSchema(document, 'getAuthoringSession').properties.checkpoint);
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
