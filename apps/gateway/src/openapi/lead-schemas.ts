import type { OpenAPIObject } from '@nestjs/swagger';
import { FLAT_LEAD_KEYS, LEAD_GROUPS, LEAD_VOCABULARIES, TRACKING_FIELDS } from '@lr/domain';

/** An OpenAPI schema object (the package exports it only through OpenAPIObject). */
export type SchemaObject = Exclude<NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string], { $ref: string }>;

/*
 * `lead` and `tracking` are checked field by field in libs/domain (parseLead,
 * parseTracking), not by class-validator; their schemas are built from the
 * same tables those functions read (the groups, the flat keys, the
 * vocabularies, the tracking fields), so the document lists exactly what is
 * read. The formats below describe the rules of checkLeadField.
 */

const FORMATS: Record<string, SchemaObject> = {
  'personal.email': { format: 'email' },
  'personal.phone': { description: 'A US number: 10 digits, an optional +1, punctuation allowed.', example: '+1 512 555 0100' },
  'personal.date_of_birth': { format: 'date', description: 'YYYY-MM-DD; an age from 13 to 100.' },
  'address.zip_code': { pattern: '^\\d{5}(-?\\d{4})?$', description: '5 digits or ZIP+4.' },
  'education.high_school_graduation_year': { pattern: '^\\d{4}$', description: 'A four-digit year (a JSON integer is accepted too).' },
};

function fieldSchema(path: string): SchemaObject {
  const vocabulary = LEAD_VOCABULARIES[path];
  return {
    type: 'string',
    maxLength: 200,
    ...(vocabulary ? { enum: [...vocabulary], description: 'One of these values, in any case.' } : {}),
    ...FORMATS[path],
  };
}

/** The lead: the contract's four groups, and the flat keys accepted in place of them (inside `lead`). */
function leadSchema(): SchemaObject {
  const groups = Object.entries(LEAD_GROUPS).map(([group, fields]) => [
    group,
    { type: 'object', properties: Object.fromEntries(fields.map((f) => [f, fieldSchema(`${group}.${f}`)])) } satisfies SchemaObject,
  ]);
  // parseLead reads a flat key only when it is not a group's name (`address` is the group).
  const flat = Object.entries(FLAT_LEAD_KEYS)
    .filter(([key]) => !(key in LEAD_GROUPS))
    .map(([key, path]) => [key, { ...fieldSchema(path), description: `Flat form of \`lead.${path}\`.` }]);
  return {
    type: 'object',
    description:
      'The consumer. Nested groups, flat keys, or both (a flat key that contradicts its nested twin is refused); ' +
      'every value a string. Unknown keys are ignored. No field is required at search: an offer whose eligibility ' +
      'needs a missing field does not qualify.',
    properties: Object.fromEntries([...groups, ...flat]),
  };
}

/** Tracking: the contract's named fields; other string keys are kept as sent. */
function trackingSchema(): SchemaObject {
  return {
    type: 'object',
    description: 'Tracking values, all strings (at most 50 keys). `ip_address` is required on search and direct post.',
    properties: Object.fromEntries(
      TRACKING_FIELDS.map((f) => [
        f,
        f === 'ip_address'
          ? {
              type: 'string',
              example: '73.12.44.10',
              description:
                "The consumer's own public IP address, not the caller's server address (the first of a forwarded list). " +
                'Private, shared and reserved addresses are refused.',
            }
          : { type: 'string', maxLength: 500 },
      ]),
    ),
    required: ['ip_address'],
    additionalProperties: { type: 'string', maxLength: 500 },
    maxProperties: 50,
  };
}

/** The request parts checked in libs/domain, as named component schemas (DTO properties refer to them by name). */
export const LEAD_SCHEMA = 'Lead';
export const TRACKING_SCHEMA = 'Tracking';

export function domainSchemas(): Record<string, SchemaObject> {
  return { [LEAD_SCHEMA]: leadSchema(), [TRACKING_SCHEMA]: trackingSchema() };
}

/** A DTO property that is one of the schemas above (allOf, so the property keeps its own description). */
export function refTo(schema: string): { allOf: [{ $ref: string }] } {
  return { allOf: [{ $ref: `#/components/schemas/${schema}` }] };
}
