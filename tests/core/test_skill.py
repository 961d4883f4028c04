"""Skills: discovery order and filters, frontmatter rules, duplicates, permissions, and the two list formats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_text_server import LoopbackTextServer

from strata_core.config.paths import StrataPaths
from strata_core.config.service import ConfigService
from strata_core.context.skill import (
    BUILTIN_LOCATION,
    BUILTIN_SKILL_NAME,
    NO_SKILLS,
    SkillInfo,
    SkillService,
    builtin_skill,
    format_skills_markdown,
    format_skills_xml,
)
from strata_core.logging import capture_events
from strata_core.permission.rules import Rule, from_config
from strata_core.project import ProjectService


def skill_file(root: Path, name: str, description: str | None = "Does things.", *, folder: str | None = None) -> Path:
    path = root / (folder or name) / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    frontmatter = f"name: {name}\n" + (f"description: {description}\n" if description is not None else "")
    path.write_text(f"---\n{frontmatter}---\n\n# {name}\n\nBody of {name}.\n", encoding="utf-8")
    return path


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.repo = tmp_path / "repo"
        (self.repo / ".git").mkdir(parents=True)
        self.env: dict[str, str] = {"HOME": str(self.home)}

    def config(self, data: dict[str, Any]) -> None:
        (self.repo / "strata.json").write_text(json.dumps(data), encoding="utf-8")

    def service(self, directory: Path | None = None) -> SkillService:
        paths = StrataPaths.from_env(self.env)
        project = ProjectService(directory or self.repo)
        return SkillService(ConfigService(paths, project, self.env), project, paths, self.env)

    async def names(self, directory: Path | None = None) -> list[str]:
        return [skill.name for skill in await self.service(directory).all()]


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


# --- discovery ------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_builtin_skill_is_registered_first_with_a_builtin_location(setup: Setup) -> None:
    skills = await setup.service().all()
    assert [s.name for s in skills] == [BUILTIN_SKILL_NAME]
    assert skills[0].location == BUILTIN_LOCATION
    assert skills[0].description
    assert "strata.json" in skills[0].content
    assert not skills[0].content.startswith("---")


@pytest.mark.anyio
async def test_discovery_order_is_global_then_project_then_config_dirs_then_skill_paths(setup: Setup) -> None:
    skill_file(setup.home / ".claude" / "skills", "global-claude")
    skill_file(setup.home / ".agents" / "skills", "global-agents")
    skill_file(setup.repo / ".claude" / "skills", "project-claude")
    skill_file(setup.repo / ".agents" / "skills", "project-agents")
    skill_file(setup.repo / ".opencode" / "skill", "opencode-dir")
    skill_file(setup.repo / ".strata" / "skills", "strata-dir")
    skill_file(setup.home / ".config" / "strata" / "skills", "global-config")
    skill_file(setup.repo / "extra", "from-path", folder="deep/er")
    setup.config({"skills": {"paths": ["extra"]}})
    assert await setup.names() == [
        BUILTIN_SKILL_NAME,
        "global-claude",
        "global-agents",
        "project-claude",
        "project-agents",
        "global-config",
        "opencode-dir",
        "strata-dir",
        "from-path",
    ]


@pytest.mark.anyio
async def test_a_linked_skill_folder_loads_once_and_a_loop_or_a_huge_linked_tree_is_not_walked_round(
    setup: Setup, tmp_path: Path
) -> None:
    skills = setup.repo / ".claude" / "skills"
    skill_file(skills, "local")
    skill_file(setup.repo / "shared", "linked")  # in the project: one linked from outside needs a permission
    (skills / "linked").symlink_to(setup.repo / "shared" / "linked")
    (skills / "local" / "loop").symlink_to(skills)  # back up the tree
    huge = tmp_path / "huge"
    for index in range(11_000):
        (huge / f"d{index // 100}").mkdir(parents=True, exist_ok=True)
        (huge / f"d{index // 100}" / f"f{index}").touch()
    (skills / "usr").symlink_to(huge)
    with capture_events() as events:
        assert await setup.names() == [BUILTIN_SKILL_NAME, "linked", "local"]
    assert any(e.get("event") == "config.markdown_walk_stopped" for e in events)


@pytest.mark.anyio
async def test_project_external_dirs_are_searched_from_the_directory_up_to_the_worktree(setup: Setup) -> None:
    skill_file(setup.repo / ".agents" / "skills", "outer")
    skill_file(setup.repo / "pkg" / ".agents" / "skills", "inner")
    skill_file(setup.repo.parent / ".agents" / "skills", "above-the-worktree")
    assert await setup.names(setup.repo / "pkg") == [BUILTIN_SKILL_NAME, "inner", "outer"]


@pytest.mark.anyio
async def test_external_skills_flag_skips_claude_and_agents_dirs(setup: Setup) -> None:
    skill_file(setup.home / ".claude" / "skills", "global-claude")
    skill_file(setup.repo / ".agents" / "skills", "project-agents")
    skill_file(setup.repo / ".opencode" / "skills", "kept")
    setup.env["STRATA_DISABLE_EXTERNAL_SKILLS"] = "1"
    assert await setup.names() == [BUILTIN_SKILL_NAME, "kept"]


@pytest.mark.parametrize("flag", ["OPENCODE_DISABLE_CLAUDE_CODE", "STRATA_DISABLE_CLAUDE_CODE_SKILLS"])
@pytest.mark.anyio
async def test_claude_code_skills_flag_skips_only_claude_dirs(setup: Setup, flag: str) -> None:
    skill_file(setup.home / ".claude" / "skills", "global-claude")
    skill_file(setup.repo / ".claude" / "skills", "project-claude")
    skill_file(setup.home / ".agents" / "skills", "global-agents")
    setup.env[flag] = "true"
    assert await setup.names() == [BUILTIN_SKILL_NAME, "global-agents"]


@pytest.mark.anyio
async def test_skill_paths_expand_home_and_warn_about_missing_dirs(setup: Setup) -> None:
    skill_file(setup.home / "my-skills", "mine")
    # Outside the project, so only where external_directory allows it (see the tests below).
    allowed = {"external_directory": {"~/my-skills/*": "allow"}}
    setup.config({"skills": {"paths": ["~/my-skills", "nowhere"]}, "permission": allowed})
    with capture_events() as logs:
        assert await setup.names() == [BUILTIN_SKILL_NAME, "mine"]
    assert {"event": "skill path not found", "path": str(setup.repo / "nowhere"), "log_level": "warning"} in logs


@pytest.mark.anyio
async def test_skill_paths_outside_the_project_need_external_directory(setup: Setup) -> None:
    skill_file(setup.home / "elsewhere", "outsider")
    setup.config({"skills": {"paths": ["~/elsewhere"]}})
    with capture_events() as logs:
        assert await setup.names() == [BUILTIN_SKILL_NAME]
    skipped = [e for e in logs if e["event"] == "outside content skipped"]
    assert [e["file"] for e in skipped] == [str(setup.home / "elsewhere" / "outsider" / "SKILL.md")]


@pytest.mark.anyio
async def test_a_skill_md_symlinked_from_outside_is_skipped(setup: Setup) -> None:
    skill_file(setup.home / "stash", "planted")
    linked = setup.repo / ".claude" / "skills" / "planted"
    linked.mkdir(parents=True)
    (linked / "SKILL.md").symlink_to(setup.home / "stash" / "planted" / "SKILL.md")
    skill_file(setup.repo / ".claude" / "skills", "honest")
    assert await setup.names() == [BUILTIN_SKILL_NAME, "honest"]


def serve_skill_pack(index: Any) -> LoopbackTextServer:
    """A real loopback skill server: `/pack/index.json` and the files it lists; records every request."""
    files = {
        "/pack/index.json": json.dumps(index),
        "/pack/remote/SKILL.md": "---\nname: remote\ndescription: From the server.\n---\nRemote body.\n",
        "/pack/remote/ref/notes.md": "notes",
        "/pack/nofile/README.md": "readme",
    }
    return LoopbackTextServer(lambda path: (200, files[path]) if path in files else (404, "missing"))


INDEX = {
    "skills": [
        {"name": "remote", "files": ["SKILL.md", "ref/notes.md"]},
        {"name": "nofile", "files": ["README.md"]},
        {"name": "..", "files": ["SKILL.md"]},
        {"name": "escape", "files": ["SKILL.md", "../../outside.md"]},
        {"name": "encoded", "files": ["SKILL.md", "%2e%2e/outside.md"]},
        {"name": "elsewhere", "files": ["SKILL.md", "https://evil.example/x.md"]},
    ]
}


@pytest.fixture
def skill_server() -> Iterator[LoopbackTextServer]:
    server = serve_skill_pack(INDEX)
    yield server
    server.close()


@pytest.mark.anyio
async def test_skill_urls_download_listed_skills_into_the_cache_once(
    setup: Setup, skill_server: LoopbackTextServer
) -> None:
    setup.config({"skills": {"urls": [skill_server.url("/pack")]}})
    remote = await setup.service().get("remote")
    cache = setup.home / ".cache" / "strata" / "skills"
    assert remote is not None
    assert (remote.location, remote.content) == (str(cache / "remote" / "SKILL.md"), "Remote body.")
    assert (cache / "remote" / "ref" / "notes.md").read_text() == "notes"
    assert sorted(p.name for p in cache.iterdir()) == ["remote"]
    assert sorted(skill_server.requests) == ["/pack/index.json", "/pack/remote/SKILL.md", "/pack/remote/ref/notes.md"]
    skill_server.requests.clear()
    assert await setup.names() == [BUILTIN_SKILL_NAME, "remote"]
    assert skill_server.requests == ["/pack/index.json"]


@pytest.mark.anyio
async def test_a_skill_server_that_is_down_or_serves_garbage_costs_only_its_skills(setup: Setup) -> None:
    server = serve_skill_pack("not an index")
    try:
        setup.config({"skills": {"urls": [server.url("/pack"), "http://127.0.0.1:1/none"]}})
        with capture_events() as logs:
            assert await setup.names() == [BUILTIN_SKILL_NAME]
    finally:
        server.close()
    events = [log["event"] for log in logs]
    assert events.count("skill index has no `skills` list, skipped") == 1
    assert events.count("skill index could not be loaded") == 1


# --- parsing --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_files_without_a_string_name_are_skipped(setup: Setup) -> None:
    root = setup.repo / ".agents" / "skills"
    (root / "plain").mkdir(parents=True)
    (root / "plain" / "SKILL.md").write_text("# No frontmatter at all\n")
    (root / "numeric").mkdir()
    (root / "numeric" / "SKILL.md").write_text("---\nname: 42\n---\nbody\n")
    (root / "bad-description").mkdir()
    (root / "bad-description" / "SKILL.md").write_text("---\nname: x\ndescription: [1, 2]\n---\nbody\n")
    skill_file(root, "good")
    assert await setup.names() == [BUILTIN_SKILL_NAME, "good"]


@pytest.mark.anyio
async def test_broken_frontmatter_is_skipped_with_a_warning_naming_the_file(setup: Setup) -> None:
    broken = setup.repo / ".agents" / "skills" / "broken" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nname: [unclosed\n---\nbody\n")
    skill_file(setup.repo / ".agents" / "skills", "fine")
    with capture_events() as logs:
        assert await setup.names() == [BUILTIN_SKILL_NAME, "fine"]
    warning = next(log for log in logs if log["event"] == "skill skipped: broken frontmatter")
    assert warning["path"] == str(broken)
    assert str(broken) in warning["error"]


@pytest.mark.anyio
async def test_a_skill_without_description_is_loadable_but_never_listed(setup: Setup) -> None:
    skill_file(setup.repo / ".agents" / "skills", "manual-skill", description=None)
    service = setup.service()
    manual = await service.get("manual-skill")
    assert manual is not None and manual.description is None
    assert manual.content == "# manual-skill\n\nBody of manual-skill."
    assert "manual-skill" not in format_skills_xml(await service.all())


@pytest.mark.anyio
async def test_duplicate_names_the_later_discovered_skill_wins_with_a_warning(setup: Setup) -> None:
    skill_file(setup.home / ".agents" / "skills", "shared", "global version")
    project = skill_file(setup.repo / ".opencode" / "skills", "shared", "project version")
    with capture_events() as logs:
        shared = await setup.service().get("shared")
    assert shared is not None
    assert (shared.description, shared.location) == ("project version", str(project))
    assert any(log["event"] == "duplicate skill name, the later one wins" for log in logs)


@pytest.mark.anyio
async def test_a_disk_skill_named_like_the_builtin_replaces_it(setup: Setup) -> None:
    custom = skill_file(setup.repo / ".agents" / "skills", BUILTIN_SKILL_NAME, "my own")
    skills = await setup.service().all()
    assert [(s.name, s.location) for s in skills] == [(BUILTIN_SKILL_NAME, str(custom))]


@pytest.mark.anyio
async def test_unknown_skill_is_none_and_dirs_lists_skill_folders(setup: Setup) -> None:
    one = skill_file(setup.repo / ".agents" / "skills", "one")
    two = skill_file(setup.repo / ".opencode" / "skill", "two")
    service = setup.service()
    assert await service.get("nope") is None
    assert await service.dirs() == [one.parent, two.parent]


# --- permissions and formats ----------------------------------------------------------------------------


@pytest.mark.anyio
async def test_available_is_sorted_by_name_and_drops_denied_skills(setup: Setup) -> None:
    for name in ("zeta", "Alpha", "beta", "internal-tool"):
        skill_file(setup.repo / ".agents" / "skills", name)
    rules = from_config({"skill": {"*": "allow", "internal-*": "deny"}})
    names = [s.name for s in await setup.service().available(rules)]
    assert names == ["Alpha", "beta", BUILTIN_SKILL_NAME, "zeta"]
    assert [s.name for s in await setup.service().available((Rule("skill", "*", "ask"),))][-2:] == [
        "internal-tool",
        "zeta",
    ]


def info(name: str, description: str | None, location: str) -> SkillInfo:
    return SkillInfo(name=name, description=description, location=location, content="body")


def test_xml_format_lists_described_skills_sorted_with_escaped_locations() -> None:
    skills = [
        info("zeta", "Last one.", "/p/zeta/SKILL.md"),
        info("alpha", "First one.", BUILTIN_LOCATION),
        info("hidden", None, "/p/hidden/SKILL.md"),
    ]
    assert format_skills_xml(skills) == "\n".join(
        [
            "<available_skills>",
            "  <skill>",
            "    <name>alpha</name>",
            "    <description>First one.</description>",
            "    <location>&lt;built-in&gt;</location>",
            "  </skill>",
            "  <skill>",
            "    <name>zeta</name>",
            "    <description>Last one.</description>",
            "    <location>/p/zeta/SKILL.md</location>",
            "  </skill>",
            "</available_skills>",
        ]
    )


def test_xml_format_with_file_urls_reproduces_the_builtin_location_quirk(tmp_path: Path) -> None:
    skills = [info("alpha", "A.", BUILTIN_LOCATION), info("my skill", "B.", "/p/my skill/SKILL.md")]
    text = format_skills_xml(skills, file_urls=True, cwd=tmp_path)
    assert f"    <location>file://{tmp_path}/%3Cbuilt-in%3E</location>" in text
    assert "    <location>file:///p/my%20skill/SKILL.md</location>" in text


def test_markdown_format_lists_described_skills_sorted() -> None:
    skills = [info("zeta", "Z.", "/z"), info("alpha", "A.", "/a"), info("manual", None, "/m")]
    assert format_skills_markdown(skills) == "## Available Skills\n- **alpha**: A.\n- **zeta**: Z."


def test_both_formats_say_so_when_no_skill_has_a_description() -> None:
    assert format_skills_xml([info("manual", None, "/m")]) == NO_SKILLS
    assert format_skills_markdown([]) == NO_SKILLS == "No skills are currently available."


def test_builtin_skill_comes_from_the_prompts_tree() -> None:
    skill = builtin_skill()
    assert skill.name == "customize-strata"
    assert skill.directory is None
    assert "## Permissions" in skill.content
