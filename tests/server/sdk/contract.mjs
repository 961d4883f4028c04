// Drives an OpenCode-compatible server with the official @opencode-ai/sdk (v2 client), asserting on what
// OpenCode 1.18.33's own server answers. The same script runs against `strata serve` and `opencode serve`.
//
// usage: node contract.mjs BASE_URL   (env STRATA_SDK_DIR: the directory npm installed @opencode-ai/sdk into)
// The model behind the server must be scripted with contract-script.json. Prints `contract: ok N checks`.
import assert from "node:assert/strict";
import path from "node:path";

import { followEvents, ofSession } from "./event-log.mjs";

const sdk = await import(path.join(process.env.STRATA_SDK_DIR, "node_modules/@opencode-ai/sdk/dist/v2/client.js"));
const client = sdk.createOpencodeClient({ baseUrl: process.argv[2] });
let checks = 0;
const check = (condition, what) => {
  assert.ok(condition, what);
  checks += 1;
};
const { seen, waitFor } = await followEvents(client);

// -- health and a session ---------------------------------------------------------------------------------
const health = (await client.global.health()).data;
check(health.healthy === true && typeof health.version === "string", "health");
await waitFor((e) => e.type === "server.connected", "server.connected");

const created = (await client.session.create({ title: "contract" })).data;
check(created.id.startsWith("ses_") && created.title === "contract", "session.create");
await waitFor(ofSession(created.id, "session.created"), "session.created");
const sessionID = created.id;

// -- prompt and wait, with the events of the turn ---------------------------------------------------------
const mark = seen.length;
const reply = (await client.session.prompt({ sessionID, parts: [{ type: "text", text: "say hello" }] })).data;
check(reply.info.role === "assistant" && reply.info.sessionID === sessionID, "prompt answers the assistant message");
check(reply.parts.some((p) => p.type === "text" && p.text === "Hello there."), "the answer's text part");
await waitFor(ofSession(sessionID, "session.idle"), "session.idle", mark);
const turnEvents = seen.slice(mark).filter((e) => e.properties?.sessionID === sessionID);
const streamed = turnEvents
  .filter((e) => e.type === "message.part.delta" && e.properties.field === "text")
  .map((e) => e.properties.delta)
  .join("");
const finalText = turnEvents.some(
  (e) => e.type === "message.part.updated" && e.properties.part.type === "text" && e.properties.part.text === "Hello there.",
);
check(streamed === "Hello there." || finalText, "the text arrives on the event stream");
check(turnEvents.some((e) => e.type === "message.updated" && e.properties.info.role === "user"), "message.updated (user)");
check(
  turnEvents.some((e) => e.type === "session.status" && e.properties.status.type === "busy"),
  "session.status busy while the turn runs",
);

// -- messages ---------------------------------------------------------------------------------------------
const messages = (await client.session.messages({ sessionID })).data;
check(messages.map((m) => m.info.role).join() === "user,assistant", "session.messages");
check(messages[0].parts.some((p) => p.type === "text" && p.text === "say hello"), "the user's text is stored");
const one = (await client.session.message({ sessionID, messageID: messages[1].info.id })).data;
check(one.info.id === messages[1].info.id && one.parts.length === messages[1].parts.length, "session.message");

// -- list, get, update, fork, children --------------------------------------------------------------------
const listed = (await client.session.list()).data;
check(listed.some((s) => s.id === sessionID), "session.list");
const renamed = (await client.session.update({ sessionID, title: "renamed" })).data;
check(renamed.title === "renamed", "session.update");
check((await client.session.get({ sessionID })).data.title === "renamed", "session.get after update");
await waitFor((e) => e.type === "session.updated" && e.properties.info.title === "renamed", "session.updated");
const fork = (await client.session.fork({ sessionID })).data;
check(fork.id !== sessionID && fork.title.startsWith("renamed"), "session.fork");
const forked = (await client.session.messages({ sessionID: fork.id })).data;
check(forked.map((m) => m.info.role).join() === "user,assistant", "the fork has the history");
check(Array.isArray((await client.session.children({ sessionID })).data), "session.children");

// -- a permission question, answered over the API ---------------------------------------------------------
const beforeAsk = seen.length;
const accepted = await client.session.promptAsync({ sessionID, parts: [{ type: "text", text: "run the command" }] });
check(accepted.response.status === 204, "prompt_async accepts at once");
const asked = await waitFor(ofSession(sessionID, "permission.asked"), "permission.asked", beforeAsk);
check(asked.properties.permission === "bash" && asked.properties.patterns[0] === "echo hi", "what is asked");
const pending = (await client.permission.list()).data;
check(pending.some((p) => p.id === asked.properties.id), "permission.list shows the question");
const busy = (await client.session.status()).data;
check(busy[sessionID]?.type === "busy", "session.status while it waits");
check((await client.permission.reply({ requestID: asked.properties.id, reply: "once" })).data === true, "reply");
await waitFor(
  (e) => e.type === "permission.replied" && e.properties.requestID === asked.properties.id,
  "permission.replied",
  beforeAsk,
);
await waitFor(ofSession(sessionID, "session.idle"), "session.idle after the answer", beforeAsk);
const afterAnswer = (await client.session.messages({ sessionID })).data;
const ran = afterAnswer.flatMap((m) => m.parts).find((p) => p.type === "tool" && p.state.input?.command === "echo hi");
check(ran?.state.status === "completed" && ran.state.output.includes("hi"), "the approved command ran");
const last = afterAnswer.at(-1);
check(last.parts.some((p) => p.type === "text" && p.text === "Ran it."), "the turn went on after the answer");

// -- abort a running turn ---------------------------------------------------------------------------------
const beforeAbort = seen.length;
await client.session.promptAsync({ sessionID, parts: [{ type: "text", text: "run another" }] });
await waitFor(ofSession(sessionID, "permission.asked"), "the second permission.asked", beforeAbort);
check((await client.session.abort({ sessionID })).data === true, "session.abort");
await waitFor(ofSession(sessionID, "session.idle"), "session.idle after the abort", beforeAbort);
const afterAbort = (await client.session.messages({ sessionID })).data;
const aborted = afterAbort.at(-1);
check(aborted.info.role === "assistant" && aborted.info.error?.name === "MessageAbortedError", "the turn is aborted");
// OpenCode 1.18.33 still lists the aborted turn's question afterwards; Strata drops it (tested on its own).
check(!(sessionID in (await client.session.status()).data) || (await client.session.status()).data[sessionID].type === "idle", "idle again");

// -- edit and remove stored parts and messages (on the fork) ----------------------------------------------
const [forkUser, forkReply] = forked;
const textPart = forkReply.parts.find((p) => p.type === "text");
const beforeEdits = seen.length;
const edited = (
  await client.part.update({
    sessionID: fork.id,
    messageID: forkReply.info.id,
    partID: textPart.id,
    part: { id: textPart.id, sessionID: fork.id, messageID: forkReply.info.id, type: "text", text: "Edited." },
  })
).data;
check(edited.id === textPart.id && edited.text === "Edited.", "part.update answers the part as stored");
await waitFor(
  (e) => e.type === "message.part.updated" && e.properties.part.id === textPart.id && e.properties.part.text === "Edited.",
  "message.part.updated after part.update",
  beforeEdits,
);
const mismatched = await client.part.update({
  sessionID: fork.id,
  messageID: forkReply.info.id,
  partID: textPart.id,
  part: { id: "prt_other", sessionID: fork.id, messageID: forkReply.info.id, type: "text", text: "X" },
});
check(mismatched.response.status === 400, "part.update with a body for another part is a bad request");
check(
  (await client.part.delete({ sessionID: fork.id, messageID: forkReply.info.id, partID: textPart.id })).data === true,
  "part.delete",
);
await waitFor(
  (e) => e.type === "message.part.removed" && e.properties.partID === textPart.id && e.properties.messageID === forkReply.info.id,
  "message.part.removed",
  beforeEdits,
);
check((await client.session.deleteMessage({ sessionID: fork.id, messageID: forkUser.info.id })).data === true, "deleteMessage");
await waitFor(
  (e) => e.type === "message.removed" && e.properties.sessionID === fork.id && e.properties.messageID === forkUser.info.id,
  "message.removed",
  beforeEdits,
);
const afterEdits = (await client.session.messages({ sessionID: fork.id })).data;
check(afterEdits.map((m) => m.info.id).join() === forkReply.info.id, "the deleted message is gone");
check(!afterEdits[0].parts.some((p) => p.id === textPart.id), "the deleted part is gone");
check(
  (await client.session.deleteMessage({ sessionID: fork.id, messageID: forkUser.info.id })).data === true,
  "deleting a message that is gone already is still true",
);
check(
  (await client.session.deleteMessage({ sessionID: "ses_missing", messageID: forkUser.info.id })).response.status === 404,
  "deleteMessage in a missing session",
);

// -- delete -----------------------------------------------------------------------------------------------
check((await client.session.delete({ sessionID: fork.id })).data === true, "session.delete");
await waitFor(ofSession(fork.id, "session.deleted"), "session.deleted");
check((await client.session.get({ sessionID: fork.id })).response.status === 404, "a deleted session is not found");
const missing = await client.session.prompt({ sessionID: fork.id, parts: [{ type: "text", text: "x" }] });
check(missing.response.status === 404 && missing.error?.name === "NotFoundError", "prompting a deleted session");

console.log(`contract: ok ${checks} checks`);
process.exit(0);
