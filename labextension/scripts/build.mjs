// Bundles the anywidget ESM entries and the stylesheet into ../shard_widgets/static/ and writes
// build-info.json: a digest of the sources (the Python build hook and a test compare it, so a
// stale committed bundle is noticed without node) and of each output.
import { createHash } from "node:crypto";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, "..");
export const OUT_DIR = join(ROOT, "..", "shard_widgets", "static");
// The prebuilt JupyterLab extension (package.json jupyterlab.outputDir), shipped in the wheel.
export const LAB_DIR = join(ROOT, "..", "share", "jupyter", "labextensions", "shard-jupyterlab");

export const ENTRIES = {
  "agent-widget": "src/entries/agent-widget.ts",
  "permission-dialog": "src/entries/permission-dialog.ts",
  "agent-dashboard": "src/entries/agent-dashboard.ts",
  "shard-widgets": "src/styles/shard.css",
};

// Keep in step with shard_widgets/_bundle.py (SOURCE_FILES / sources_digest).
const SOURCE_FILES = [
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.lab.json",
  "install.json",
];
const SOURCE_DIRS = ["src", "scripts"];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

export function sourceFiles() {
  const files = [
    ...SOURCE_FILES.map((f) => join(ROOT, f)),
    ...SOURCE_DIRS.flatMap((d) => walk(join(ROOT, d))),
  ];
  return files.map((f) => relative(ROOT, f).split(sep).join("/")).sort();
}

export function sourcesDigest() {
  const hash = createHash("sha256");
  for (const name of sourceFiles()) {
    hash.update(name);
    hash.update("\0");
    hash.update(readFileSync(join(ROOT, name)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

async function main() {
  await build({
    entryPoints: Object.fromEntries(
      Object.entries(ENTRIES).map(([name, path]) => [name, join(ROOT, path)]),
    ),
    outdir: OUT_DIR,
    bundle: true,
    format: "esm",
    target: "es2020",
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    logLevel: "warning",
  });
  const outputs = {};
  for (const name of Object.keys(ENTRIES)) {
    const file = name === "shard-widgets" ? `${name}.css` : `${name}.js`;
    outputs[file] = createHash("sha256")
      .update(readFileSync(join(OUT_DIR, file)))
      .digest("hex");
  }
  const info = { sources_sha256: sourcesDigest(), outputs };
  writeFileSync(join(OUT_DIR, "build-info.json"), `${JSON.stringify(info, null, 2)}\n`);
  console.log(`built ${Object.keys(outputs).join(", ")} into ${relative(ROOT, OUT_DIR)}`);
}

/** After the Lab build: install.json (so `jupyter labextension list` names the pip package) and
 * the sources digest the Python side compares, as for the widget bundle. */
function stampLab() {
  copyFileSync(join(ROOT, "install.json"), join(LAB_DIR, "install.json"));
  const info = { sources_sha256: sourcesDigest() };
  writeFileSync(join(LAB_DIR, "build-info.json"), `${JSON.stringify(info, null, 2)}\n`);
  console.log(`stamped ${relative(ROOT, LAB_DIR)}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--lab")) stampLab();
  else await main();
}
