import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { E164_PATTERN } from './channels';

/**
 * zod with the OpenAPI extension (`.openapi(name)`), for the schemas of API objects. Each area's
 * `*.schemas.ts` imports `z` from here, so a schema is usable wherever it is loaded (API or worker).
 */
extendZodWithOpenApi(z);

export { z };

/**
 * An E.164 phone number in a request (its validity for the country's numbering plan is the service's
 * check: 422 when not). The one schema of it, for routes and every other area's request schemas.
 */
export const E164Schema = z.string().regex(E164_PATTERN).describe('E.164 phone number, such as +14155550100');

/** The list envelope every list endpoint answers (`listOf(item, name)` in src/http/schemas is its schema). */
export interface ListObject<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/**
 * What a refinement the OpenAPI document cannot state passes as its options, `.refine(check,
 * UNPROCESSABLE('…'))`: input the schema accepts that breaks it is 422 parameter_unprocessable, not 400.
 */
export const UNPROCESSABLE = (message: string) => ({ message, params: { unprocessable: true } });
