import { ApiSchema, type ApiSchemaOptions, type OpenAPIObject } from '@nestjs/swagger';
import type { SchemaObject } from './lead-schemas';

/** Keywords of a whole object schema that @nestjs/swagger has no class decorator for. */
export type SchemaKeywords = Pick<SchemaObject, 'additionalProperties' | 'oneOf' | 'not'>;

const keywordsByName = new Map<string, SchemaKeywords>();

/**
 * `@ApiSchema`, plus keywords of the whole schema (`additionalProperties`,
 * `oneOf`, `not`): @nestjs/swagger builds a class's schema from its properties
 * only, so these are kept by schema name and merged into the component when
 * the document is built (withSchemaKeywords). They stay on the class they
 * describe.
 */
export function ApiSchemaWith(options: ApiSchemaOptions & { name: string }, keywords: SchemaKeywords): ClassDecorator {
  keywordsByName.set(options.name, keywords);
  return ApiSchema(options);
}

/** The document with every ApiSchemaWith keyword merged into its component; a component missing from it is an error. */
export function withSchemaKeywords(document: OpenAPIObject): OpenAPIObject {
  const schemas = document.components?.schemas ?? {};
  for (const [name, keywords] of keywordsByName) {
    const schema = schemas[name];
    if (!schema || '$ref' in schema) throw new Error(`schema ${name} has keywords (ApiSchemaWith) but is not a component of the document`);
    Object.assign(schema, keywords);
  }
  return document;
}
