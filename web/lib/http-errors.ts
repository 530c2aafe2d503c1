/**
 * The spec's mapping from a failed call to the text a participant sees (part 1 §8, part 2 §8).
 * Returns i18n keys and values so the page renders them in the current language.
 */
import type { TFunction } from 'i18next';
import { ApiError, NetworkError } from './api';
export type UserErrorText = { key: string; values?: Record<string, string> };

export function userErrorText(error: unknown): UserErrorText {
  if (error instanceof NetworkError) return { key: 'errors.http.network' };
  if (error instanceof ApiError) {
    if (error.status === 400) return { key: 'errors.http.badRequest' };
    if (error.status === 404) return { key: 'errors.http.notFound' };
    // The study closed without letting those in progress finish (the dashboard's recruitment control).
    if (error.code === 'study_closed') return { key: 'recruitment.stopped' };
    // Every server-side failure (500, and 502/503/504 from the platform or a proxy) gets the spec's
    // server text; its detail stays on the error for the log, never raw on a participant's screen.
    if (error.status >= 500) return { key: 'errors.http.server' };
    return { key: 'errors.http.other', values: { message: error.message } };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { key: 'errors.http.unexpected', values: { message } };
}

/** The text of a failed call in the current language: what every screen shows for an API failure. */
export function userErrorMessage(t: TFunction, error: unknown): string {
  const { key, values } = userErrorText(error);
  return t(key, values ?? {});
}
