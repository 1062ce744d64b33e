// The part of autocannon's programmatic API bench/api.ts uses (the package ships no types).
declare module 'autocannon' {
  type Options = { url: string; headers?: Record<string, string>; connections?: number; duration?: number; timeout?: number };
  type Result = {
    requests: { average: number };
    latency: { p50: number; p99: number; max: number };
    timeouts: number;
    errors: number;
    non2xx: number;
    /** answers per HTTP status */
    statusCodeStats?: Record<string, { count: number }>;
  };
  export default function autocannon(options: Options): Promise<Result>;
}
