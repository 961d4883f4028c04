"""Reading a shell command the way a permission check needs it, with a real bash grammar (tree-sitter).

Every simple command in the line (including those inside `$( )`, pipelines and `&&` chains) is one thing
to ask about: its source text is the `bash` permission pattern, and its arity prefix plus ` *` is what an
"always allow" remembers (`git push origin main` -> `git push *`). Commands that touch paths (`cd`, `rm`,
`cp`, ...) with a path outside the project also need `external_directory` for that path's directory.

Unlike OpenCode, a line never runs unasked for want of a simple command: a redirection no command owns
(`> file` empties the file) is asked about by its own text, and a line with nothing the grammar calls a
command by the whole line. And a command spelled so that its text hides its name (`X=1 rm f`, `'rm' f`,
`r\\m f`, `command rm f`, `time rm f`, `/bin/rm f`) is also asked about as `rm f`: every pattern must pass,
so a rule such as `rm *: deny` holds for each spelling, and an allow rule allows no more than before.
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
WRAPPERS = frozenset({"builtin", "command", "env", "exec", "nice", "nohup", "time"})
"""Words that run the command after them: `command rm f` removes `f` as `rm f` does."""
_QUOTES_AND_ESCAPES = re.compile(r"""\\(.)|['"]""", re.DOTALL)


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


_LIST_TYPES = frozenset({"list", "pipeline", "negated_command"})


def _redirection_owner(statement: Node) -> Node | None:
    """The simple command a redirected statement's redirections apply to, if one does.

    Bash binds `a && b > f` to `b` (and `a | b > f` likewise) though the grammar hangs the redirection on the
    whole list; a compound statement (`{ }`, a loop, a subshell), or nothing at all (`> f`), owns it itself."""
    body: Node | None = statement.children[0] if statement.children else None
    while body is not None and body.type in _LIST_TYPES:
        body = body.named_children[-1] if body.named_children else None
    return body if body is not None and body.type == "command" else None


def _spans(node: Node, owned: dict[int, tuple[int, int]]) -> Iterator[tuple[int, int, Node | None]]:
    """Every simple command (with its words' node) and every redirection no command owns (node None), in
    source order, nested ones (in `$( )`, `{ }`, pipelines) included, as byte spans that include the
    redirections bash applies to them."""
    for child in node.children:
        if child.type == "redirected_statement":
            owner = _redirection_owner(child)
            if owner is None:
                yield child.start_byte, child.end_byte, None
            else:
                start = child.start_byte if owner == child.children[0] else owner.start_byte
                owned[owner.id] = (start, child.end_byte)
        elif child.type == "command":
            yield *owned.get(child.id, (child.start_byte, child.end_byte)), child
        yield from _spans(child, owned)


def parse_commands(command: str) -> list[SimpleCommand]:
    """The simple commands of a line, and its redirections that belong to none (those have no words)."""
    source = command.encode("utf-8")
    found = []
    for start, end, node in _spans(_parser().parse(source).root_node, {}):
        words = tuple(_text(child) for child in node.children if child.type in _WORD_TYPES) if node else ()
        found.append(SimpleCommand(source[start:end].decode("utf-8", errors="replace").strip(), words))
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


def plain_words(words: Sequence[str]) -> list[str]:
    """The words as bash runs them, for matching rules: quotes and backslashes removed, wrappers (`command`,
    `time`, `env VAR=x`, ...) and their options dropped, and the command named without its directory."""
    plain = [_QUOTES_AND_ESCAPES.sub(lambda found: found.group(1) or "", word) for word in words]
    while plain and plain[0] in WRAPPERS:
        plain = plain[1:]
        while plain and (plain[0].startswith("-") or "=" in plain[0]):
            plain = plain[1:]
    if plain and plain[0].startswith("/"):  # `/bin/rm`; `./build.sh` stays the project's own script
        plain[0] = plain[0].rsplit("/", 1)[-1] or plain[0]
    return plain


def _disguised(simple: SimpleCommand, plain: list[str]) -> bool:
    """Whether the command's text hides its name (an assignment or a redirection before it, quotes, escapes,
    a wrapper, a directory): then it is asked about as `plain_words` spells it too."""
    return bool(plain) and not (simple.words[0] == plain[0] and simple.source.startswith(plain[0]))


def _remembered(simple: SimpleCommand) -> str:
    """What "always allow" keeps: the arity prefix for a command, the exact text for a bare redirection."""
    return " ".join(arity_prefix(simple.words)) + " *" if simple.words else simple.source


def scan(command: str, cwd: Path, home: Path, inside: Callable[[Path], bool]) -> CommandScan:
    outside: list[Path] = []
    patterns: list[str] = []
    always: list[str] = []
    found = parse_commands(command)
    if not found and command.strip():
        # Nothing the grammar calls a command (an assignment, a test, a line it cannot read): still asked about,
        # as a whole, so that rules such as `*: deny` hold for every line that runs.
        found = [SimpleCommand(command.strip(), ())]
    for simple in found:
        plain = plain_words(simple.words)
        name = plain[0] if plain else None
        if name in FILE_COMMANDS:
            for argument in path_arguments(simple):
                path = argument_path(argument, cwd, home)
                if path is not None and not inside(path) and path not in outside:
                    outside.append(path)
        if name not in CWD_COMMANDS:
            disguised = _disguised(simple, plain)
            for pattern in (simple.source, *([" ".join(plain)] if disguised else [])):
                if pattern not in patterns:
                    patterns.append(pattern)
            # "Always" covers both spellings, or the plain one would ask again every time.
            for remembered in (_remembered(simple), *([" ".join(arity_prefix(plain)) + " *"] if disguised else [])):
                if remembered not in always:
                    always.append(remembered)
    return CommandScan(tuple(outside), tuple(patterns), tuple(always))
