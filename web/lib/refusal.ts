/**
 * Telling a refusal from a failure: a 4xx (other than 429) means the server will never take the
 * request, so an outbox lets that answer go instead of re-sending it forever.
 */
import { ApiError } from './api';
import { AnswerRejected } from './outbox';

/** A 4xx other than "too many requests": the server refuses the request for good, so re-sending cannot help. */
export const isRefusal = (err: unknown): err is ApiError => err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429;

/** An outbox sender over `call`: a refusal becomes AnswerRejected, so the outbox lets that answer go. */
export const refusableSender =
  <A>(call: (answer: A) => Promise<unknown>) =>
  async (answer: A): Promise<void> => {
    try {
      await call(answer);
    } catch (err) {
      if (isRefusal(err)) throw new AnswerRejected(err.message);
      throw err;
    }
  };
