// Drives an ACP agent with the official TypeScript client (@agentclientprotocol/sdk), asserting on what
// `opencode acp` 1.18.33 does. The same script runs against `strata acp` and `opencode acp`.
//
// usage: node scenarios.mjs AGENT [ARGS...]   run in the agent's project (a git repo with notes.txt whose
//   opencode.json points a scripted model at scenarios-script.json, with edit and bash asking);
//   env STRATA_ACP_SDK_DIR: the directory npm installed @agentclientprotocol/sdk into;
//   env ACP_SUMMARY: where to write what each scenario said (method names, update kinds, tool kinds and
//   statuses, stop reasons), for the test to compare two agents; env ACP_TRANSCRIPT (optional): where to
//   write every message both ways of both agent processes.
// Scenarios: initialize, session/new, a text turn, a read, a write allowed once (and handed to
// fs/write_text_file), a command rejected, a cancel during `sleep 30`, set_mode plan and a turn in it; then
// session/load in a second agent process and a turn there. Prints `acp-scenarios: ok N checks`.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";

const acp = await import(
  path.join(process.env.STRATA_ACP_SDK_DIR, "node_modules/@agentclientprotocol/sdk/dist/v1/unstable/acp.js")
);
const [command, ...args] = process.argv.slice(2);
const cwd = process.cwd();
const WAIT_MS = 30_000;
const DROPPED = new Set(["available_commands_update", "usage_update"]);
let checks = 0;
const check = (condition, what) => {
  assert.ok(condition, what);
  checks += 1;
};

const children = new Set();
// A failed check ends the script: the agents (and what they run) go with it.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

// One agent process: the SDK's client over its stdio, every message recorded both ways.
function startAgent() {
  const child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  const transcript = [];
  const base = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const tap = (direction) =>
    new TransformStream({
      transform(message, controller) {
        transcript.push([direction, message]);
        controller.enqueue(message);
        for (const listener of state.listeners) listener();
      },
    });
  const outgoing = tap("out");
  outgoing.readable.pipeTo(base.writable).catch(() => {});
  const stream = { readable: base.readable.pipeThrough(tap("in")), writable: outgoing.writable };
  const state = { answers: [], questions: [], writes: [], updates: [], listeners: new Set() };
  const app = acp
    .client({ name: "strata-acp-tests" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      state.questions.push(params);
      const wanted = state.answers.shift();
      if (wanted === undefined) return { outcome: { outcome: "cancelled" } };
      const option = params.options.find((o) => o.kind === wanted);
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      state.writes.push([params.path, params.content]); // recorded only: the agent writes the file itself
      return {};
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({
      content: fs.readFileSync(params.path, "utf8"),
    }))
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      state.updates.push(params.update);
    });
  const connection = app.connect(stream);
  const until = (condition, what) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), WAIT_MS);
      const listener = () => {
        if (condition()) {
          clearTimeout(timer);
          state.listeners.delete(listener);
          resolve();
        }
      };
      state.listeners.add(listener);
      listener();
    });
  const stop = async () => {
    connection.close();
    child.stdin.end();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.kill("SIGTERM");
    await exited;
    clearTimeout(timer);
  };
  return { agent: connection.agent, transcript, state, until, stop };
}

// What a stretch of the conversation said, ids, times, titles and chunking aside.
function said(a, fromMessage, fromUpdate, stopReason) {
  const kinds = [];
  for (const update of a.state.updates.slice(fromUpdate)) {
    const kind = update.sessionUpdate;
    if (!DROPPED.has(kind) && kinds[kinds.length - 1] !== kind) kinds.push(kind);
  }
  // Repeats of one update (a running command's output as it comes) collapse, as chunks do.
  const tools = [];
  for (const u of a.state.updates.slice(fromUpdate)) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const entry = [u.sessionUpdate, u.kind ?? null, u.status ?? null];
    if (JSON.stringify(tools[tools.length - 1]) !== JSON.stringify(entry)) tools.push(entry);
  }
  const methods = a.transcript
    .slice(fromMessage)
    .filter(([, m]) => m.method !== undefined && m.method !== "session/update")
    .map(([direction, m]) => `${direction} ${m.method}`);
  return { stop: stopReason ?? null, kinds, tools, methods };
}

// Polls /proc (Linux) until a process with this argv runs in `directory`.
async function waitForProcess(argv, directory) {
  const wanted = argv.join("\0") + "\0";
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (cmdline === wanted && fs.realpathSync(`/proc/${pid}/cwd`) === fs.realpathSync(directory)) return;
      } catch {
        // gone meanwhile, or not ours to read
      }
    }
    if (Date.now() > deadline) throw new Error(`no ${argv.join(" ")} process ran in ${directory}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function turn(a, sessionId, text, answers = []) {
  a.state.answers.push(...answers);
  const fromMessage = a.transcript.length;
  const fromUpdate = a.state.updates.length;
  const answer = await a.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  return { ...said(a, fromMessage, fromUpdate, answer.stopReason), answer };
}

const textOf = (updates, kind) =>
  updates
    .filter((u) => u.sessionUpdate === kind && u.content?.type === "text")
    .map((u) => u.content.text)
    .join("");
const summary = {};

// -- initialize and a session -------------------------------------------------------------------------------
const first = startAgent();
const init = await first.agent.request(acp.methods.agent.initialize, {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
});
check(init.protocolVersion === 1, "protocolVersion 1");
check(init.agentCapabilities.loadSession === true, "loadSession");
check(init.agentCapabilities.promptCapabilities.embeddedContext === true, "embeddedContext");
check(init.agentCapabilities.mcpCapabilities.http === true, "mcp over http");
check(typeof init.agentInfo.name === "string", "agentInfo");
const created = await first.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
const sessionId = created.sessionId;
check(typeof sessionId === "string" && sessionId.startsWith("ses_"), "a session id");
const optionIds = created.configOptions.map((o) => o.id);
check(optionIds.includes("model") && optionIds.includes("mode"), "model and mode config options");
check(created.modes === undefined && created.models === undefined, "no modes/models fields");
summary.initialize = { capabilities: Object.keys(init.agentCapabilities).sort(), new: Object.keys(created).sort() };
summary.config_ids = optionIds;

// -- a text turn --------------------------------------------------------------------------------------------
let from = first.state.updates.length;
const text = await turn(first, sessionId, "say hello");
check(text.stop === "end_turn", "text: end_turn");
check(textOf(first.state.updates.slice(from), "agent_message_chunk") === "Hello there.", "text: the answer");
check(text.answer.usage === undefined || typeof text.answer.usage.totalTokens === "number", "text: usage");
summary.text = text;

// -- a read ---------------------------------------------------------------------------------------------------
from = first.state.updates.length;
const read = await turn(first, sessionId, "read the notes");
const statuses = read.tools.map(([, , status]) => status);
check(read.stop === "end_turn", "read: end_turn");
check(read.tools[0][1] === "read" && statuses.join(",") === "pending,in_progress,completed", "read: statuses");
const done = first.state.updates.slice(from).find((u) => u.status === "completed");
check(JSON.stringify(done.content).includes("alpha"), "read: the file text");
summary.read = read;

// -- a write allowed once, handed to the editor ----------------------------------------------------------------
const written = path.join(cwd, "new.txt");
const write = await turn(first, sessionId, "write new.txt", ["allow_once"]);
const question = first.state.questions[0];
check(write.stop === "end_turn", "write: end_turn");
check(
  question.options.map((o) => o.kind).join(",") === "allow_once,allow_always,reject_once",
  "write: the question's options",
);
check(question.toolCall.content?.some((c) => c.type === "diff"), "write: the question carries the diff");
check(fs.readFileSync(written, "utf8") === "fresh\n", "write: the file");
check(
  first.state.writes.some(([p, content]) => p === written && content === "fresh\n"),
  "write: fs/write_text_file",
);
check(write.tools[write.tools.length - 1][2] === "completed", "write: completed");
summary.write = write;

// -- a command rejected --------------------------------------------------------------------------------------
const reject = await turn(first, sessionId, "touch a file", ["reject_once"]);
check(reject.stop === "end_turn", "reject: the turn ends");
check(reject.tools[reject.tools.length - 1][1] === "execute", "reject: an execute tool");
check(reject.tools[reject.tools.length - 1][2] === "failed", "reject: failed");
check(!fs.existsSync(path.join(cwd, "ran")), "reject: the command did not run");
summary.reject = reject;

// -- cancel during `sleep 30` ---------------------------------------------------------------------------------
from = first.state.updates.length;
const fromMessage = first.transcript.length;
const asked = first.state.questions.length;
first.state.answers.push("allow_once");
const waiting = first.agent.request(acp.methods.agent.session.prompt, {
  sessionId,
  prompt: [{ type: "text", text: "wait a while" }],
});
// Running once its process is: an `in_progress` update may come before the question (both agents send one
// there at times) and nothing need follow the answer while a silent command runs.
await first.until(() => first.state.questions.length > asked, "the command's question");
await waitForProcess(["sleep", "30"], cwd);
await first.agent.notify(acp.methods.agent.session.cancel, { sessionId });
const cancelled = await Promise.race([
  waiting,
  new Promise((_, reject) => setTimeout(() => reject(new Error("the prompt did not end after cancel")), 10_000)),
]);
check(cancelled.stopReason === "cancelled", "cancel: stopReason cancelled");
summary.cancel = said(first, fromMessage, from, cancelled.stopReason);

// -- plan mode ------------------------------------------------------------------------------------------------
const moded = await first.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
check(typeof moded === "object", "set_mode answers");
const plan = await turn(first, sessionId, "make a plan");
check(plan.stop === "end_turn", "plan: end_turn");
summary.plan = plan;
await first.stop();

// -- load in a second process ---------------------------------------------------------------------------------
const second = startAgent();
await second.agent.request(acp.methods.agent.initialize, {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
});
const loaded = await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
check(Array.isArray(loaded.configOptions), "load: configOptions");
const replay = said(second, 0, 0, null);
check(replay.kinds.includes("user_message_chunk"), "load: the user's messages replayed");
check(replay.kinds.includes("agent_message_chunk"), "load: the answers replayed");
check(textOf(second.state.updates, "user_message_chunk").includes("say hello"), "load: the first prompt");
summary.load = { kinds: replay.kinds, tools: replay.tools };
from = second.state.updates.length;
const after = await turn(second, sessionId, "still there?");
check(after.stop === "end_turn", "after load: end_turn");
check(textOf(second.state.updates.slice(from), "agent_message_chunk") === "Still here.", "after load: answer");
summary.after_load = after;
await second.stop();

for (const value of Object.values(summary)) delete value.answer;
if (process.env.ACP_SUMMARY) fs.writeFileSync(process.env.ACP_SUMMARY, JSON.stringify(summary, null, 2));
if (process.env.ACP_TRANSCRIPT) {
  const transcripts = { first: first.transcript, second: second.transcript };
  fs.writeFileSync(process.env.ACP_TRANSCRIPT, JSON.stringify(transcripts, null, 2));
}
console.log(`acp-scenarios: ok ${checks} checks`);
