import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { textParts } from './scripts/lib/text-parts-plugin';

// The SPA is served by the Worker as static assets (wrangler.toml [assets]).
export default defineConfig({
  root: 'web',
  plugins: [react(), textParts()],
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    // Source maps stay out of the public assets (they would publish the whole source).
    sourcemap: false,
    // Browsers without <link rel=modulepreload> still load every module, one after another.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // What the first screen needs is one file (web/main.tsx and everything it imports, React,
        // the router and i18next with it): one request, and it compresses better than many small
        // chunks. Every other screen stays its own chunk.
        codeSplitting: { groups: [{ name: 'first-load', test: /\/web\/main\.tsx$/ }] },
        // The first load lists every lazy chunk's file for preloading: hashes alone keep that list short.
        chunkFileNames: 'assets/[hash].js',
      },
    },
  },
  server: {
    // `vite dev` forwards API calls to a running `wrangler dev`.
    proxy: { '/api': 'http://127.0.0.1:8787' },
  },
});
