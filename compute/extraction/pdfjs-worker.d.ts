// pdfjs-dist ships its worker module without types: the one export compute/extraction/pdf.ts uses.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  /** pdfjs's worker side; initializeFromPort answers the API's messages arriving on the port (a web worker's or ours). */
  export const WorkerMessageHandler: {
    initializeFromPort(port: {
      postMessage(message: unknown, transfer?: unknown[]): void;
      addEventListener(name: 'message', listener: (event: { data: unknown }) => void, options?: { signal?: AbortSignal }): void;
      removeEventListener(name: 'message', listener: (event: { data: unknown }) => void): void;
    }): void;
  };
}
