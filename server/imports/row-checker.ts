/**
 * Holds each row of a CSV import to the contract's schema of the single create operation's body, as the
 * validator holds a JSON request: a row of a file never reaches the domain with a value a request could not
 * carry (a percent over 100, a malformed date, a code with a line break). The first problem is reported with the
 * field it is in.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { BUNDLED_CONTRACT } from '../paths.js';
import { FRESH } from '../store/fresh.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options?: { mode: 'full' }) => Ajv2020;

export interface RowProblem {
  field?: string;
  reason: string;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validator(schema: string): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    if (!ajv) {
      ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
      addFormats(ajv, { mode: 'full' });
      ajv.addSchema(JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as object, 'import-rows-contract');
    }
    validate = ajv.compile({ $ref: `import-rows-contract#/components/schemas/${schema}` });
    validators.set(schema, validate);
  }
  return validate;
}

/** The most telling error: in a union, the one that got deepest into the value. */
function telling(errors: ErrorObject[]): ErrorObject {
  return errors.reduce((best, error) => (error.instancePath.length > best.instancePath.length ? error : best), errors[0]!);
}

/** The first way a row breaks the named component schema, or undefined when it is fine. */
export function checkRow(schema: string, value: unknown): RowProblem | undefined {
  const validate = validator(schema);
  if (validate(value)) return undefined;
  const error = telling(validate.errors ?? []);
  const missing = error.keyword === 'required' ? String((error.params as { missingProperty?: string }).missingProperty ?? '') : '';
  const path = [...error.instancePath.split('/').filter(Boolean), ...(missing ? [missing] : [])].join('.');
  return { ...FRESH, ...(path && { field: path }), reason: `${path || 'the row'} ${error.message ?? 'is invalid'}` };
}
