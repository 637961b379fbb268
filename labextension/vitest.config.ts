import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The JS tests live in ../tests/js (next to the Python tests); they import sources from src/.
// A worker runs its test files in one jsdom and one module graph (isolate: false): a fresh
// jsdom per file cost 0.7 s of CPU each (25 of the run's 50 s for 36 files). Each file still
// starts on an empty page with real timers and empty storage (tests/js/setup.ts); the files
// pass in any order (checked with --sequence.shuffle on one worker).
export default defineConfig({
  server: { fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] } },
  test: {
    dir: fileURLToPath(new URL("../tests/js", import.meta.url)),
    include: ["**/*.test.ts"],
    environment: "jsdom",
    isolate: false,
    setupFiles: [fileURLToPath(new URL("../tests/js/setup.ts", import.meta.url))],
  },
});
