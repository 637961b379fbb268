// Run before each test file: the files of a worker share one jsdom and one module graph
// (isolate: false in labextension/vitest.config.ts), so each starts as in a fresh page: no
// nodes left in the body, real timers, empty storage, and the helpers' seq counter at 0.
import { afterAll, beforeAll, vi } from "vitest";
import { resetSeq } from "./helpers";

function freshPage(): void {
  vi.useRealTimers();
  document.body.replaceChildren();
  sessionStorage.clear();
  localStorage.clear();
  resetSeq();
}

beforeAll(freshPage);
afterAll(freshPage);
