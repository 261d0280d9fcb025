"""The tempos on a clock: cron expressions, the APScheduler daemon, system crontab lines."""
