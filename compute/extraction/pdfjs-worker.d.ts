// pdfjs-dist ships its worker module without types: the exports compute/extraction/pdf.ts uses.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  /**
   * Added by patches/pdfjs-dist+6.5.438.patch: a stream that would decode to more than `bytesMax` bytes throws instead
   * (pdfjs then drops what it was reading, as for any damaged stream) and counts itself in `exceeded`. One per thread.
   */
  export const DecodeLimits: { bytesMax: number; exceeded: number };
  /** pdfjs's worker side; initializeFromPort answers the API's messages arriving on the port (a web worker's or ours). */
  export const WorkerMessageHandler: {
    initializeFromPort(port: {
      postMessage(message: unknown, transfer?: unknown[]): void;
      addEventListener(name: 'message', listener: (event: { data: unknown }) => void, options?: { signal?: AbortSignal }): void;
      removeEventListener(name: 'message', listener: (event: { data: unknown }) => void): void;
    }): void;
  };
}
