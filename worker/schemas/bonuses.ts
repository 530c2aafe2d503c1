/**
 * Wire shapes of the bonuses an incentive condition pays (the dashboard's Bonuses tab): every
 * finished participant's bonus as the Worker worked it out, and marking a payment batch paid.
 */
import { z } from 'zod';
import { sessionIdSchema } from './experiment';

export const bonusRowSchema = z.object({
  session_id: z.string(),
  prolific_pid: z.string().nullable(),
  condition: z.string().nullable(),
  dataset_type: z.string(),
  completed_at: z.string().nullable(),
  correct_final: z.number().int(),
  correct_pre: z.number().int(),
  currency: z.string(),
  /** Amounts in the currency, two decimals. */
  base: z.number(),
  bonus: z.number(),
  paid_at: z.string().nullable(),
});
export type BonusRow = z.infer<typeof bonusRowSchema>;

export const bonusListSchema = z.object({
  participants: z.array(bonusRowSchema),
  /** Unpaid bonuses per currency: how many and how much. */
  unpaid: z.array(z.object({ currency: z.string(), participants: z.number().int(), total: z.number() })),
});

/** Which bonuses a download holds: those not yet marked paid (a payment batch), or every one. */
export const bonusDownloadQuerySchema = z.object({ include_paid: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') });

/** `POST /api/admin/bonuses/mark-paid`: the participants of a payment batch, marked paid once. */
export const markPaidBodySchema = z.object({ session_ids: z.array(sessionIdSchema).min(1, 'name at least one participant').max(2000, 'at most 2000 participants per batch') });
export const markPaidResultSchema = z.object({ success: z.literal(true), marked: z.number().int(), already_paid: z.array(z.string()), paid_at: z.string() });
