// A dependency-free MCP server (JSON-RPC over stdio) that reports the values the bundle was started with.
const crypto = require("crypto");
const fs = require("fs");
const readline = require("readline");

const folders = process.argv.slice(2);

function report() {
  const key = process.env.PROBE_TOKEN || "";
  const sha = crypto.createHash("sha256").update(key).digest("hex");
  const exists = folders.map((f) => fs.existsSync(f) && fs.statSync(f).isDirectory());
  return `runtime=node key_sha256=${sha} folders=${folders.join("|")} exists=${exists.join("|")} verbose=${process.env.PROBE_VERBOSE}`;
}

function answer(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: (request.params && request.params.protocolVersion) || "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "node-probe", version: "2.0.0" },
      };
    case "tools/list":
      return { tools: [{ name: "probe", description: "Report the configured values", inputSchema: { type: "object", properties: {} } }] };
    case "tools/call":
      return { content: [{ type: "text", text: report() }], isError: false };
    default:
      return {};
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer(message) }) + "\n");
});
