// `node bench/render.mjs [core ...]`: writes bench/results/<core>.md and <core>.svg again from
// <core>.json (default: every core with a .json there), so that a change to the table or the
// chart needs no new run. Plain Node ESM.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { chart } from "./chart.mjs";
import { table } from "./table.mjs";

const results = join(dirname(fileURLToPath(import.meta.url)), "results");
const cores = process.argv.slice(2).length > 0
  ? process.argv.slice(2)
  : ["fake", "real"].filter((c) => existsSync(join(results, `${c}.json`)));
for (const core of cores) {
  const report = JSON.parse(readFileSync(join(results, `${core}.json`), "utf8"));
  writeFileSync(join(results, `${core}.md`), table(report));
  writeFileSync(join(results, `${core}.svg`), chart(report));
  console.log(`bench/render.mjs: wrote bench/results/${core}.md and ${core}.svg`);
}
