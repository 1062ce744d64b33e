// The web app's build (`npm run build:web`, or on demand by `npm start`) and dev server (`npm run dev`: hot reload,
// with /v1 proxied to a running API at CRUCIBLE_API_URL, default http://127.0.0.1:8080).
// The first screen stays small: the world editor, the diagram and the charts are their own chunks (React.lazy in
// main.tsx), loaded when their screen opens; runtime/webBuild.ts precompresses the output (brotli and gzip).
import react from '@vitejs/plugin-react';
import { type Plugin, defineConfig } from 'vite';

const root = new URL('.', import.meta.url).pathname;
const plainMarkdown = new URL('./src/world/schemaMarkdown.ts', import.meta.url).pathname;

/** codemirror-json-schema renders schema descriptions with markdown-it and Shiki: swap in plain escaped text. */
function withoutSchemaMarkdown(): Plugin {
  return {
    name: 'crucible:codemirror-json-schema-plain-markdown',
    enforce: 'pre',
    resolveId(source, importer) {
      if (importer?.includes('/codemirror-json-schema/') && /\/utils\/markdown(\.js)?$/.test(source)) return plainMarkdown;
      return null;
    },
  };
}

export default defineConfig({
  root,
  plugins: [withoutSchemaMarkdown(), react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 700 },
  server: {
    port: 5173,
    strictPort: false,
    proxy: { '/v1': { target: process.env.CRUCIBLE_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false } },
  },
});
