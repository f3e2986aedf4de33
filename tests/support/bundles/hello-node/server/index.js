// A dependency-free MCP server (JSON-RPC over stdio) answering "hello" with how it was started.
const readline = require("readline");

function report() {
  const unset = process.argv.concat(Object.values(process.env)).filter((v) => v.includes("${")).length;
  const key = process.env.API_KEY === undefined ? "absent" : "present";
  return `hello from node; args=${process.argv.slice(2).join(" ")} api_key=${key} debug=${process.env.DEBUG} literal_placeholders=${unset}`;
}

function answer(request) {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: (request.params && request.params.protocolVersion) || "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "hello-node", version: "0.1.0" },
      };
    case "tools/list":
      return { tools: [{ name: "hello", description: "Say hello", inputSchema: { type: "object", properties: {} } }] };
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
