// Drives an attached TUI's control channel with the SDK's default (v1) client and checks each call reaches an
// `/event` subscriber as the `tui.*` event OpenCode publishes. Runs against `strata serve` and `opencode serve`.
//
// usage: node tui-v1.mjs BASE_URL   (env STRATA_SDK_DIR: the directory npm installed @opencode-ai/sdk into)
// Prints `tui: ok` and the events in the order they arrived.
import assert from "node:assert/strict";
import path from "node:path";

import { followEvents } from "./event-log.mjs";

const sdk = await import(path.join(process.env.STRATA_SDK_DIR, "node_modules/@opencode-ai/sdk/dist/index.js"));
const client = sdk.createOpencodeClient({ baseUrl: process.argv[2] });
const { seen, waitFor } = await followEvents(client);
await waitFor((e) => e.type === "server.connected", "server.connected");

const mark = seen.length;
assert.equal((await client.tui.appendPrompt({ body: { text: "hello from the sdk" } })).data, true, "appendPrompt");
const appended = await waitFor((e) => e.type === "tui.prompt.append", "tui.prompt.append", mark);
assert.deepEqual(appended.properties, { text: "hello from the sdk" });

assert.equal((await client.tui.submitPrompt()).data, true, "submitPrompt");
await waitFor((e) => e.type === "tui.command.execute" && e.properties.command === "prompt.submit", "prompt.submit", mark);

assert.equal((await client.tui.executeCommand({ body: { command: "agent_cycle" } })).data, true, "executeCommand");
await waitFor((e) => e.type === "tui.command.execute" && e.properties.command === "agent.cycle", "agent.cycle", mark);

const toast = { title: "Build", message: "done", variant: "success" };
assert.equal((await client.tui.showToast({ body: toast })).data, true, "showToast");
const shown = await waitFor((e) => e.type === "tui.toast.show", "tui.toast.show", mark);
assert.deepEqual(shown.properties, { ...toast, duration: 5000 });

const events = seen.slice(mark).filter((e) => e.type.startsWith("tui."));
console.log(`tui: ok ${events.map((e) => `${e.type}:${e.properties.command ?? e.properties.text ?? e.properties.message}`).join(" ")}`);
process.exit(0);
