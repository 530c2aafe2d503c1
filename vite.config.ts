import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The SPA is served by the Worker as static assets (wrangler.toml [assets]).
export default defineConfig({
  root: 'web',
  plugins: [react()],
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    // Source maps stay out of the public assets (they would publish the whole source).
    sourcemap: false,
  },
  server: {
    // `vite dev` forwards API calls to a running `wrangler dev`.
    proxy: { '/api': 'http://127.0.0.1:8787' },
  },
});
