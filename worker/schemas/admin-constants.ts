/** Admin constants the SPA needs without zod (the dashboard's chunk stays light). */

/** Rows per page the dashboard offers (part 2 §2.6); 1000 is its "all" choice. */
export const PAGE_SIZES = [20, 50, 100, 200, 500, 1000] as const;
