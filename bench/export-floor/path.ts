/** The route of bench/export-floor/worker.ts that reads the pre-experiment pages and writes nothing. */
export const D1_READ_PATH = '/api/__bench/pre-experiment-pages';
