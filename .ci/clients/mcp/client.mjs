// The official TypeScript SDK's client, over Streamable HTTP, against the
// example server: list the tools, call each one, fail on any error.
// Usage: node client.mjs <base URL> <API key>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, key] = process.argv.slice(2);
const fail = (msg) => { console.error(msg); process.exit(1); };

const transport = new StreamableHTTPClientTransport(new URL(base + "/v1/mcp"), {
  requestInit: { headers: { Authorization: "Bearer " + key } },
});
const client = new Client({ name: "ci-mcp-client", version: "1.0.0" });
await client.connect(transport);
console.log(`protocol revision ${transport.protocolVersion}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
const want = ["get_deliverable_download", "get_invoice", "get_invoice_document", "get_project",
  "list_deliverables", "list_events", "list_invoices", "list_messages", "list_milestones",
  "list_projects", "list_threads", "status_summary"];
if (JSON.stringify(names) !== JSON.stringify(want)) fail("tools/list: " + names.join(", "));
for (const t of tools) {
  if (!t.annotations?.readOnlyHint) fail(t.name + ": not readOnlyHint");
  if (!t.outputSchema) fail(t.name + ": no output schema");
}

async function call(name, args) {
  // callTool validates structuredContent against the tool's output schema.
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) fail(`${name} ${JSON.stringify(args)}: ${res.content?.[0]?.text}`);
  const text = res.content?.[0]?.text;
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(res.structuredContent)) fail(name + ": text and structuredContent differ");
  console.log(`${name} ${JSON.stringify(args)}: ok, ${text.length} bytes`);
  return res.structuredContent;
}

const projects = await call("list_projects", { limit: 5 });
const project = projects.data[0].id;
await call("get_project", { id: project });
await call("list_milestones", {});
await call("list_milestones", { projectId: project });
// The output schemas hold the optional shapes too: an expanded project, a page of changes.
await call("list_milestones", { expand: "project", limit: 3 });
await call("list_threads", { expand: "project", updatedSince: "1970-01-01T00:00:00Z" });
const deliverables = await call("list_deliverables", { limit: 100 });
const withFile = deliverables.data.find((d) => d.sizeBytes !== null);
if (!withFile) fail("no deliverable with a file in the demo data");
await call("get_deliverable_download", { id: withFile.id });
const invoices = await call("list_invoices", { limit: 100 });
await call("get_invoice", { id: invoices.data[0].id });
const withDocument = invoices.data.find((i) => i.documentAvailable);
if (!withDocument) fail("no invoice with a document in the demo data");
await call("get_invoice_document", { id: withDocument.id });
const threads = await call("list_threads", {});
await call("list_messages", {});
await call("list_messages", { threadId: threads.data[0].id });
await call("list_events", { limit: 5 });
await call("status_summary", {});

// A bad argument is a tool result with isError, not a protocol error.
const bad = await client.callTool({ name: "list_projects", arguments: { limit: 101 } });
if (!bad.isError || !bad.content[0].text.includes("INVALID_PARAMETER")) fail("limit 101: " + JSON.stringify(bad));
console.log("list_projects {limit: 101}: isError INVALID_PARAMETER, as it should");
// A wrong JSON type names the argument.
const typed = await client.callTool({ name: "list_invoices", arguments: { limit: "5" } });
if (!typed.isError || !typed.content[0].text.includes('"param":"limit"')) fail("limit \"5\": " + JSON.stringify(typed));
console.log('list_invoices {limit: "5"}: isError naming limit, as it should');
await client.close();
