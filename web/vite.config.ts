// The web app's build (`npm run build:web`, or on demand by `npm start`) and dev server (`npm run dev`: hot reload,
// with /v1 proxied to a running API at CRUCIBLE_API_URL, default http://127.0.0.1:8080).
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = new URL('.', import.meta.url).pathname;

export default defineConfig({
  root,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 700 },
  server: {
    port: 5173,
    strictPort: false,
    proxy: { '/v1': { target: process.env.CRUCIBLE_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false } },
  },
});
