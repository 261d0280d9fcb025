"""`souveraine schedule`: the tempos on a clock."""

import click

from souveraine.cli.common import DefaultGroup, emit, json_option, pass_memory


@click.group(name="schedule", cls=DefaultGroup, default="list")
def schedule_cmd():
    """Run the periodic tempos: digest, defrag, doctor, and the reflect/archive check.

    Times come from [schedule] in souveraine.toml as cron expressions (weekday 0 =
    Sunday, as in cron). Bare `schedule` lists them with their next run.

    Example:

    \b
        souveraine schedule crontab | crontab -
    """


@schedule_cmd.command(name="list")
@json_option
@pass_memory
def schedule_list(memory, as_json):
    """Each configured tempo, its cron expression and its next run time.

    Example:

    \b
        souveraine schedule list --json
    """
    from souveraine.clock.schedule import next_runs

    emit(next_runs(memory), as_json,
         lambda rows: "\n".join(f"{r['tempo']:<7} {r['cron']:<18} next {r['next']}  ({r['about']})" for r in rows))


@schedule_cmd.command(name="run")
@pass_memory
def schedule_run(memory):
    """Run the tempos in the foreground (APScheduler) until SIGTERM or Ctrl-C.

    Missed runs (a sleeping laptop) coalesce into one within the misfire grace; one
    run at a time per memory. Logs go to stdout and .souveraine/schedule.log.

    Example:

    \b
        souveraine schedule run
    """
    from souveraine.clock.schedule import serve

    serve(memory)


@schedule_cmd.command(name="once")
@click.argument("tempo", type=click.Choice(["digest", "defrag", "doctor", "check"]))
@click.option("--skip-if-busy", is_flag=True, help="Skip instead of waiting when another command holds the memory.")
@json_option
@pass_memory
def schedule_once(memory, tempo, skip_if_busy, as_json):
    """Run one tempo now, as the scheduler would (lock, log, inbox item on failure).

    Exit 1 when the job failed. This is what the crontab lines call.

    Example:

    \b
        souveraine schedule once digest
    """
    from souveraine.clock.schedule import run_job, setup_logging

    if not as_json:
        setup_logging(memory)
    result = run_job(memory, tempo, on_busy="skip" if skip_if_busy else None)
    if as_json:
        emit(result, True)
    if result["status"] == "failed":
        raise click.exceptions.Exit(1)


@schedule_cmd.command(name="crontab")
@json_option
@pass_memory
def schedule_crontab(memory, as_json):
    """Print crontab lines for the configured tempos (absolute paths, output to a log).

    Example:

    \b
        souveraine schedule crontab >> my.crontab
    """
    from souveraine.clock.schedule import crontab

    lines = crontab(memory)
    emit(lines, as_json, lambda rows: "\n".join(rows))
