// Follows a turn and a permission question through the event stream with the SDK's default import (the v1
// client most integrations use: `import { createOpencodeClient } from "@opencode-ai/sdk"`), which splits the
// stream on "\n\n" only. Runs against `strata serve` and `opencode serve` alike.
//
// usage: node events-v1.mjs BASE_URL   (env STRATA_SDK_DIR: the directory npm installed @opencode-ai/sdk into)
// The model behind the server must be scripted with contract-script.json's first three turns.
// Prints `events-v1: ok` and the event types the turn brought.
import assert from "node:assert/strict";
import path from "node:path";

import { followEvents, ofSession } from "./event-log.mjs";

const sdk = await import(path.join(process.env.STRATA_SDK_DIR, "node_modules/@opencode-ai/sdk/dist/index.js"));
const client = sdk.createOpencodeClient({ baseUrl: process.argv[2] });
const { seen, waitFor } = await followEvents(client);

await waitFor((e) => e.type === "server.connected", "server.connected");
const session = (await client.session.create({ body: { title: "v1" } })).data;
assert.ok(session.id.startsWith("ses_"), "session.create");
await waitFor((e) => e.type === "session.created" && e.properties.info.id === session.id, "session.created");

const mark = seen.length;
const reply = (await client.session.prompt({ path: { id: session.id }, body: { parts: [{ type: "text", text: "say hello" }] } })).data;
assert.ok(reply.parts.some((p) => p.type === "text" && p.text === "Hello there."), "the answer");
await waitFor(ofSession(session.id, "session.idle"), "session.idle", mark);
const turn = seen.slice(mark).filter((e) => e.properties?.sessionID === session.id || e.properties?.info?.sessionID === session.id);
const text = turn
  .filter((e) => e.type === "message.part.delta" && e.properties.field === "text")
  .map((e) => e.properties.delta)
  .join("");
assert.equal(text, "Hello there.", "the text arrives as deltas");

const beforeAsk = seen.length;
await client.session.promptAsync({ path: { id: session.id }, body: { parts: [{ type: "text", text: "run the command" }] } });
const asked = await waitFor(ofSession(session.id, "permission.asked"), "permission.asked", beforeAsk);
const answered = await client.postSessionIdPermissionsPermissionId({
  path: { id: session.id, permissionID: asked.properties.id },
  body: { response: "once" },
});
assert.equal(answered.data, true, "the reply is taken");
await waitFor((e) => e.type === "permission.replied" && e.properties.requestID === asked.properties.id, "permission.replied", beforeAsk);
await waitFor(ofSession(session.id, "session.idle"), "session.idle after the answer", beforeAsk);

console.log(`events-v1: ok ${[...new Set(turn.map((e) => e.type))].sort().join(" ")}`);
process.exit(0);
