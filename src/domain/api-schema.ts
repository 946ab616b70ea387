import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

/**
 * zod with the OpenAPI extension (`.openapi(name)`), for the schemas of API objects. Each area's
 * `*.schemas.ts` imports `z` from here, so a schema is usable wherever it is loaded (API or worker).
 */
extendZodWithOpenApi(z);

export { z };

/** The list envelope every list endpoint answers (`listOf(item, name)` in src/http/schemas is its schema). */
export interface ListObject<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}
