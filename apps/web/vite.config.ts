import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The api serves the built dashboard under /app (same origin, so the session cookie and tRPC need no
// CORS). `vite` (pnpm dev) serves it with hot reload and forwards /trpc (and the REST downloads) to the api at API_URL.
const apiUrl = process.env.API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  base: '/app/',
  plugins: [react()],
  server: {
    host: '127.0.0.1',
    port: Number(process.env.WEB_PORT ?? 5173),
    strictPort: true,
    // The web call's audio worklet too: the api serves it (as the built dashboard's origin does).
    proxy: {
      '/trpc': apiUrl,
      '/recordings': apiUrl,
      '/functions': apiUrl,
      '/app/web-call-worklet.js': apiUrl,
    },
  },
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 300,
    rollupOptions: {
      // The core's schemas (one import path, @voice/core/schemas) are declarations without side effects:
      // a page takes the ones it uses, and the first load none it does not.
      treeshake: { moduleSideEffects: (id) => !id.includes('/packages/core/src/') },
    },
  },
});
