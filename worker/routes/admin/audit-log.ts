import { Hono } from 'hono';
import { listAuditLog } from '../../db/queries/audit-log';
import type { AppEnv } from '../../env';
import { paginationQuerySchema, type AuditLogResponse } from '../../schemas/admin';
import { validate } from '../../validate';

export const adminAuditLogRoutes = new Hono<AppEnv>()
  .get('/', validate('query', paginationQuerySchema), async (c) => {
    const { rows, total } = await listAuditLog(c.var.db, c.req.valid('query'));
    const body: AuditLogResponse = {
      total,
      entries: rows.map((r) => ({
        id: r.id,
        actor: r.actor,
        action: r.action,
        target_type: r.targetType,
        target_id: r.targetId,
        details: r.details ?? null,
        ip_address: r.ipAddress,
        created_at: r.createdAt,
      })),
    };
    return c.json(body);
  });
