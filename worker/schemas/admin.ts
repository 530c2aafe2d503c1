import { z } from 'zod';

export const adminLoginBodySchema = z.object({
  password: z.string().min(1, 'password is required').max(512),
});

export const adminSessionResponseSchema = z.object({
  authenticated: z.boolean(),
  expires_at: z.string().nullable(),
});
export type AdminSessionResponse = z.infer<typeof adminSessionResponseSchema>;

export const paginationQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const auditLogResponseSchema = z.object({
  total: z.number().int(),
  entries: z.array(
    z.object({
      id: z.number().int(),
      actor: z.string(),
      action: z.string(),
      target_type: z.string().nullable(),
      target_id: z.string().nullable(),
      details: z.record(z.string(), z.unknown()).nullable(),
      ip_address: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});
export type AuditLogResponse = z.infer<typeof auditLogResponseSchema>;
