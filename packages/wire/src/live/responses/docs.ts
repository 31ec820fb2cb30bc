import { z } from "zod";

/** The service's own reference: the OpenAPI document and the HTML page that renders it. */

export const openApiDocumentResponse = z.record(z.string(), z.unknown());

export const htmlPageResponse = z.string();
