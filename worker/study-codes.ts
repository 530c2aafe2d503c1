/**
 * The codes that pay a participant or close their submission on the recruiting platform. They
 * live here, on the server only, and never in `schemas/study-config.ts`, which the SPA bundles:
 * a code in a served asset can be read by anyone who opens the study's URL and never takes part.
 * The Worker hands the completion code only to a session whose post-survey is stored.
 * Researchers set them to the codes of their own study (Prolific's study settings must match).
 */
import { z } from 'zod';
import { studyConfig } from './schemas/study';

const prolificCode = z.string().regex(/^[A-Za-z0-9]{4,32}$/);

export const studyCodesSchema = z
  .object({
    /** Entered by the participant into the recruiting platform's form, and used in Prolific's completion link. */
    completionCode: z.string().regex(/^[A-Z0-9]{5,32}$/),
    /** Given to a Prolific participant who declines consent or withdraws, so they can return the study. */
    prolificReturnCode: prolificCode.nullable(),
    /** Given to a Prolific participant who is screened out. */
    prolificScreenOutCode: prolificCode.nullable(),
  })
  .refine((c) => studyConfig.prolific.screenOutAfterFailedUnderstandingTests === null || c.prolificScreenOutCode !== null, {
    message: 'prolificScreenOutCode is required when prolific.screenOutAfterFailedUnderstandingTests is set',
  });

export const studyCodes = studyCodesSchema.parse({
  completionCode: 'XD5K7',
  prolificReturnCode: 'XDRT7',
  prolificScreenOutCode: 'XDSC4',
} satisfies z.input<typeof studyCodesSchema>);

const VERIFICATION_DIGITS = '0123456789ABCDEF';

/**
 * A participant's own verification code (10 hex digits, 40 bits), shown beside the study-wide
 * code on completion and kept with the session, so a researcher can match each submission on the
 * recruiting platform to one completed session in the export.
 */
export function newVerificationCode(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => VERIFICATION_DIGITS[b >> 4]! + VERIFICATION_DIGITS[b & 15]!).join('');
}
