import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The JS tests live in ../tests/js (next to the Python tests); they import sources from src/.
export default defineConfig({
  server: { fs: { allow: [fileURLToPath(new URL("..", import.meta.url))] } },
  test: {
    dir: fileURLToPath(new URL("../tests/js", import.meta.url)),
    include: ["**/*.test.ts"],
    environment: "jsdom",
  },
});
