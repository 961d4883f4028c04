"""Reading a shell command the way a permission check needs it, with a real bash grammar (tree-sitter).

Every simple command in the line (including those inside `$( )`, pipelines and `&&` chains) is one thing
to ask about: its source text is the `bash` permission pattern, and its arity prefix plus ` *` is what an
"always allow" remembers (`git push origin main` -> `git push *`). Commands that touch paths (`cd`, `rm`,
`cp`, ...) with a path outside the project also need `external_directory` for that path's directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path

import tree_sitter_bash
from attrs import frozen
from tree_sitter import Language, Node, Parser

# How many leading words name "the command" (flags never count): the longest listed prefix decides;
# unlisted commands are their first word. The entries follow OpenCode's table, plus uv and pip3/python3.
_ARITY_ONE = """cat, cd, chmod, chown, cp, echo, env, export, grep, kill, killall, ln, ls, mkdir, mv, ps, pwd, rm,
    rmdir, sleep, source, tail, touch, unset, which"""
_ARITY_TWO = """bazel, brew, bun, cargo, cdk, cf, cmake, composer, consul, crictl, deno, docker, eksctl, firebase,
    flyctl, git, go, gradle, helm, heroku, hugo, ip, kind, kubectl, kustomize, make, mc, minikube,
    mongosh, mysql, mvn, ng, npm, nvm, nx, openssl, pip, pip3, pipenv, pnpm, poetry, podman, psql,
    pulumi, pyenv, python, python3, rake, rbenv, redis-cli, rustup, serverless, skaffold, sls, sst,
    swift, systemctl, terraform, tmux, turbo, ufw, uv, vault, vercel, volta, wp, yarn"""
_ARITY_THREE = """aws, az, doctl, gcloud, gh, sfdx, bun run, bun x, cargo add, cargo run, consul kv, deno task,
    docker builder, docker compose, docker container, docker image, docker network, docker volume,
    eksctl create, git config, git remote, git stash, ip addr, ip link, ip netns, ip route, kind create,
    kubectl kustomize, kubectl rollout, mc admin, npm exec, npm init, npm run, npm view, openssl req,
    openssl x509, pnpm dlx, pnpm exec, pnpm run, podman container, podman image, pulumi stack,
    terraform workspace, uv pip, uv run, vault auth, vault kv, yarn dlx, yarn run"""


def _entries(listing: str) -> list[str]:
    return [" ".join(entry.split()) for entry in listing.split(",")]


ARITY: dict[str, int] = {
    **dict.fromkeys(_entries(_ARITY_ONE), 1),
    **dict.fromkeys(_entries(_ARITY_TWO), 2),
    **dict.fromkeys(_entries(_ARITY_THREE), 3),
}

CWD_COMMANDS = frozenset({"cd", "chdir", "popd", "pushd"})
"""Commands that only move the shell: asked about as paths, never as commands."""
FILE_COMMANDS = CWD_COMMANDS | {"rm", "cp", "mv", "mkdir", "touch", "chmod", "chown", "cat"}
_WORD_TYPES = frozenset({"command_name", "word", "string", "raw_string", "concatenation"})


def arity_prefix(tokens: Sequence[str]) -> list[str]:
    """The words that name the command: `["npm", "run", "dev", "--x"]` -> `["npm", "run", "dev"]`."""
    for length in range(len(tokens), 0, -1):
        arity = ARITY.get(" ".join(tokens[:length]))
        if arity is not None:
            return list(tokens[:arity])
    return list(tokens[:1])


@frozen
class SimpleCommand:
    source: str
    """The command's text, with its redirections when it has any."""
    words: tuple[str, ...]
    """The command name and its literal arguments (expansions and substitutions are not words here)."""


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_bash.language()))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _command_nodes(node: Node) -> Iterator[Node]:
    """Every `command` node, in source order, nested ones (in `$( )`, `{ }`, pipelines) included."""
    for child in node.children:
        if child.type == "command":
            yield child
        yield from _command_nodes(child)


def parse_commands(command: str) -> list[SimpleCommand]:
    tree = _parser().parse(command.encode("utf-8"))
    found = []
    for node in _command_nodes(tree.root_node):
        words = tuple(_text(child) for child in node.children if child.type in _WORD_TYPES)
        holder = node.parent if node.parent is not None and node.parent.type == "redirected_statement" else node
        found.append(SimpleCommand(_text(holder).strip(), words))
    return found


# ------------------------------------------------------------------------------------ path arguments


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] in "\"'" and text[0] == text[-1]:
        return text[1:-1]
    return text


def _expand_home(text: str, home: Path, cwd: Path) -> str:
    # Strata also reads $HOME and $PWD, which OpenCode leaves as "unknown" for bash: `cat $HOME/.ssh/x`
    # is then judged as the path it is.
    text = re.sub(r"^\$(?:\{HOME\}|HOME)(?=$|/)", str(home), text)
    text = re.sub(r"^\$(?:\{PWD\}|PWD)(?=$|/)", str(cwd), text)
    if text == "~":
        return str(home)
    if text.startswith("~/"):
        return str(home / text[2:])
    return text


def _is_dynamic(text: str) -> bool:
    return text.startswith(("(", "@(")) or "$" in text or "`" in text


def _before_glob(text: str) -> str | None:
    """The literal part before any glob character (`src/*.py` -> `src/`); `None` if it starts with one."""
    match = re.search(r"[?*\[]", text)
    if match is None:
        return text
    return text[: match.start()] or None


def path_arguments(command: SimpleCommand) -> list[str]:
    """Arguments of a file command that name paths: not flags, not `chmod +x`-style modes."""
    name = command.words[0] if command.words else ""
    return [
        word
        for word in command.words[1:]
        if not word.startswith("-") and not (name == "chmod" and word.startswith("+"))
    ]


def argument_path(argument: str, cwd: Path, home: Path) -> Path | None:
    """The path an argument names, made absolute against `cwd`; `None` when it cannot be known statically."""
    text = _before_glob(_expand_home(_unquote(argument), home, cwd))
    if text is None or _is_dynamic(text):
        return None
    return Path(os.path.normpath(cwd / text))


@frozen
class CommandScan:
    """What a command line needs permission for."""

    outside: tuple[Path, ...]
    """Paths outside the project that file commands touch."""
    patterns: tuple[str, ...]
    always: tuple[str, ...]


def scan(command: str, cwd: Path, home: Path, inside: Callable[[Path], bool]) -> CommandScan:
    outside: list[Path] = []
    patterns: list[str] = []
    always: list[str] = []
    for simple in parse_commands(command):
        name = simple.words[0] if simple.words else None
        if name in FILE_COMMANDS:
            for argument in path_arguments(simple):
                path = argument_path(argument, cwd, home)
                if path is not None and not inside(path) and path not in outside:
                    outside.append(path)
        if simple.words and name not in CWD_COMMANDS:
            if simple.source not in patterns:
                patterns.append(simple.source)
            remembered = " ".join(arity_prefix(simple.words)) + " *"
            if remembered not in always:
                always.append(remembered)
    return CommandScan(tuple(outside), tuple(patterns), tuple(always))
