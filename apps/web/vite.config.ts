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
    proxy: { '/trpc': apiUrl, '/recordings': apiUrl, '/functions': apiUrl },
  },
  build: { target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 300 },
});
