import { z } from 'zod';
import { CLEAN_TEXT_MESSAGE, isCleanText } from './text';

/** A free-text field of at most `max` characters, clean as `text.ts` defines it. */
export const freeText = (max: number) => z.string().max(max).refine(isCleanText, CLEAN_TEXT_MESSAGE);
