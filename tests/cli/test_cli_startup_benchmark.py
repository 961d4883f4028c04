"""benchmarks/startup.py measures what it says: a start-up run without a server, a whole run with one."""

from __future__ import annotations

from benchmarks import startup


def test_version_run_is_measured_without_a_model_call() -> None:
    sample = startup.measure([str(startup.STRATA), "--version"], with_server=False)
    assert sample.wall > 0 and sample.first_request is None and sample.peak_rss_mib > 0


def test_a_hello_run_records_when_the_first_model_request_arrived() -> None:
    sample = startup.measure([str(startup.STRATA), "run", "say hello"], with_server=True)
    assert sample.first_request is not None and 0 < sample.first_request <= sample.wall


def test_results_have_one_row_per_case_and_metric() -> None:
    hello = startup.Sample(wall=0.4, first_request=0.3, peak_rss_mib=50.0, cpu=0.38)
    quick = startup.Sample(wall=0.05, first_request=None, peak_rss_mib=20.0, cpu=0.04)
    samples = {
        ("--version", "strata"): [quick],
        ("--help", "strata"): [quick],
        ('run "say hello"', "strata"): [hello],
    }
    rows = startup.results(samples, runs=1)
    assert [(r.scenario, r.metric) for r in rows] == [
        ("start-up: --version", "wall"),
        ("start-up: --version", "CPU (user+sys)"),
        ("start-up: --help", "wall"),
        ("start-up: --help", "CPU (user+sys)"),
        ('start-up: run "say hello"', "to first model request"),
        ('start-up: run "say hello"', "wall"),
        ('start-up: run "say hello"', "CPU (user+sys)"),
        ('start-up: run "say hello"', "peak RSS"),
    ]
    assert rows[4].strata == 300.0 and rows[4].opencode is None
    assert rows[6].strata == 380.0 and rows[6].target is None and rows[5].target is not None
