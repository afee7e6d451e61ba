"""Django settings, read from environment variables (see README: Configuration)."""

from __future__ import annotations

from pathlib import Path

from .env import database_from_url, env_bool, env_float, env_int, env_list, env_str, stored_secret

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("EVIDENCE_DATA_DIR", str(BASE_DIR / ".data"))).resolve()

DEBUG = env_bool("DJANGO_DEBUG", False)  # off unless asked for: no debug pages, no URL list on a typo
# DJANGO_SECRET_KEY, else a random key generated once and kept (mode 0600) in the data folder.
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "") or stored_secret(DATA_DIR / "secret_key")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# Served over HTTPS (behind a TLS proxy that sets X-Forwarded-Proto): secure cookies, redirects to https, HSTS.
EVIDENCE_HTTPS = env_bool("EVIDENCE_HTTPS", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = EVIDENCE_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if EVIDENCE_HTTPS else None
SECURE_HSTS_SECONDS = env_int("EVIDENCE_HSTS_SECONDS", 31_536_000 if EVIDENCE_HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("EVIDENCE_HSTS_INCLUDE_SUBDOMAINS", EVIDENCE_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("EVIDENCE_HSTS_PRELOAD", EVIDENCE_HTTPS)
SECURE_REDIRECT_EXEMPT = [r"^health$", r"^live$"]  # a load balancer probes over plain HTTP

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "ninja",
    "evidence",
]

MIDDLEWARE = [
    "evidence.middleware.MetricsMiddleware",
    "evidence.errors.NulGuardMiddleware",  # before anything reads a form: a NUL byte is a 400, never a 500
    "evidence.errors.PlainErrorsMiddleware",  # a crash is a plain 500 page even in debug
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "researchapp.urls"
ASGI_APPLICATION = "researchapp.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DEFAULT_DATABASE_URL = f"postgresql://postgres@127.0.0.1:{env_int('PG_PORT', 55432)}/evidence"
DATABASES = {"default": database_from_url(env_str("DATABASE_URL", DEFAULT_DATABASE_URL))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL", f"redis://127.0.0.1:{env_int('REDIS_PORT', 56379)}/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_DEFAULT_QUEUE = env_str("EVIDENCE_TASK_QUEUE", "celery")  # where runs and files are sent
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# "priority": a worker takes from the first of its queues that has work (scripts/run.py lists System 1's batches,
# then runs and files, then background preparation), instead of the fair round robin that gave preparation chunks
# half the worker while an upload's files waited.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600, "queue_order_strategy": "priority"}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# collectstatic also writes gzip (and Brotli, where installed) copies, served by evidence.static_serving.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "servestatic.storage.CompressedStaticFilesStorage"},
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the cookie-less meta tag; kept default for forms
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True

# Uploads: the whole request is capped before any parsing happens.
EVIDENCE_MAX_FILE_BYTES = env_int("EVIDENCE_MAX_FILE_BYTES", 50 * 1024 * 1024, minimum=1)
EVIDENCE_MAX_UPLOAD_BYTES = env_int("EVIDENCE_MAX_UPLOAD_BYTES", 200 * 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 1000

# Research runs.
EVIDENCE_RUN_BUDGET_S = env_float("EVIDENCE_RUN_BUDGET_S", 300.0)
EVIDENCE_RUN_SPEND_CAP_USD = env_float("EVIDENCE_RUN_SPEND_CAP_USD", 5.0)
EVIDENCE_UPLOAD_DIR = DATA_DIR / "uploads"
EVIDENCE_JUDGE_QUEUE = env_str("EVIDENCE_JUDGE_QUEUE", "judge")  # System 1 batches fan out on this queue
EVIDENCE_JUDGE_FANOUT = env_bool("EVIDENCE_JUDGE_FANOUT", True)
# Papers are prepared for reading (their sentence and paragraph vectors) in the background once indexed, in small
# chunks on this queue, so the first questions on a new collection do not pay for it (evidence/ingest/prepare.py).
EVIDENCE_PREPARE_QUEUE = env_str("EVIDENCE_PREPARE_QUEUE", "prepare")
EVIDENCE_PREPARE_IN_BACKGROUND = env_bool("EVIDENCE_PREPARE_IN_BACKGROUND", True)
EVIDENCE_EMBED_THREADS = env_int("EVIDENCE_EMBED_THREADS", 0, minimum=0)

# Reliability and limits.
EVIDENCE_RUN_STALE_AFTER_S = env_float("EVIDENCE_RUN_STALE_AFTER_S", 180.0)  # a silent run this long lost its worker
# The reaper (evidence/services/reaper.py): a queued run or file waiting this long is sent again (then twice as
# long, ...); a file silent this long while parsing or embedding lost its worker and is taken again.
EVIDENCE_RESEND_AFTER_S = env_float("EVIDENCE_RESEND_AFTER_S", 120.0)
# A run silent this long says what it is doing (a progress event); 0 turns progress events off.
EVIDENCE_PROGRESS_QUIET_S = env_float("EVIDENCE_PROGRESS_QUIET_S", 2.0)
EVIDENCE_FILE_STALE_AFTER_S = env_float("EVIDENCE_FILE_STALE_AFTER_S", 300.0)
EVIDENCE_MAX_ACTIVE_RUNS_PER_USER = env_int("EVIDENCE_MAX_ACTIVE_RUNS_PER_USER", 5, minimum=1)
EVIDENCE_MAX_RUNS_PER_DAY = env_int("EVIDENCE_MAX_RUNS_PER_DAY", 500, minimum=1)
EVIDENCE_API_SESSION_RATE_PER_MINUTE = env_int("EVIDENCE_API_SESSION_RATE_PER_MINUTE", 600, minimum=1)
# Pi-Serini backend URLs (secret, per collection): loopback clients only unless allowed; an agent's call rate.
EVIDENCE_PISERINI_ALLOW_REMOTE = env_bool("EVIDENCE_PISERINI_ALLOW_REMOTE", False)
EVIDENCE_PISERINI_RATE_PER_MINUTE = env_int("EVIDENCE_PISERINI_RATE_PER_MINUTE", 3000, minimum=1)
EVIDENCE_SITE_URL = env_str("EVIDENCE_SITE_URL", "")  # printed in backend URLs; unset: the request's own host
EVIDENCE_METRICS_TOKEN = env_str("EVIDENCE_METRICS_TOKEN", "")  # unset: only loopback clients may scrape /metrics
EVIDENCE_SSE_MAX_S = env_float("EVIDENCE_SSE_MAX_S", 600.0)
EVIDENCE_PARSE_TIMEOUT_S = env_float("EVIDENCE_PARSE_TIMEOUT_S", 60.0)
EVIDENCE_PARSE_MEMORY_BYTES = env_int("EVIDENCE_PARSE_MEMORY_BYTES", 2 * 1024**3, minimum=64 * 1024**2)
EVIDENCE_PAGE_CACHE_DIR = Path(env_str("EVIDENCE_PAGE_CACHE_DIR", str(DATA_DIR / "pages")))  # rendered PDF pages
EVIDENCE_PAGE_SSE_MAX_S = env_float("EVIDENCE_PAGE_SSE_MAX_S", 300.0)  # a run page's stream; the browser reconnects
EVIDENCE_SSE_MAX_PER_USER = env_int("EVIDENCE_SSE_MAX_PER_USER", 20, minimum=1)
EVIDENCE_METRICS_QUEUES = [q for q in env_str("EVIDENCE_METRICS_QUEUES", "").split(",") if q]  # empty: celery + judge
EVIDENCE_BACKGROUND_MERGES = env_bool("EVIDENCE_BACKGROUND_MERGES", True)  # index segments merged off the request
# Celery retries and the reaper's beat (read when the tasks module loads)
EVIDENCE_INGEST_RETRIES = env_int("EVIDENCE_INGEST_RETRIES", 100, minimum=0)
EVIDENCE_RUN_RETRIES = env_int("EVIDENCE_RUN_RETRIES", 100, minimum=0)
EVIDENCE_REAP_EVERY_S = env_float("EVIDENCE_REAP_EVERY_S", 60.0)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # keep our JSON log format in workers

OPENAI_BASE_URL = env_str("OPENAI_BASE_URL", "https://api.openai.com/v1")
OPENAI_API_KEY = env_str("OPENAI_API_KEY", "")
OPENAI_MODEL = env_str("OPENAI_MODEL", "gpt-4o-mini")

# System 1: `local` (offline), `jev` (System One API) or `llm` (OpenAI-compatible JSON judgments); a run's
# config may choose another. Keys stay here, never in a run's config or a task message.
# The reader that gives the short answer (evidence/reader/runtime.py): local (the bundled model), extractive, a .gguf
# file, or an OpenAI-compatible endpoint's base URL.
EVIDENCE_READER = env_str("EVIDENCE_READER", "local")
EVIDENCE_READER_MODEL = env_str("EVIDENCE_READER_MODEL", "")  # an endpoint's model name
EVIDENCE_READER_KEY = env_str("EVIDENCE_READER_KEY", "")  # an endpoint's key (a loopback server needs none)
EVIDENCE_READER_THREADS = env_int("EVIDENCE_READER_THREADS", 0, minimum=0)  # 0: every core (one reader at a time)
EVIDENCE_READER_TIMEOUT_S = env_float("EVIDENCE_READER_TIMEOUT_S", 30.0)
EVIDENCE_READER_SENTENCES = env_int("EVIDENCE_READER_SENTENCES", 5, minimum=1)
EVIDENCE_READER_WORDS = env_int("EVIDENCE_READER_WORDS", 150, minimum=1)  # past the first 3 sentences
EVIDENCE_MODEL_DIR = Path(env_str("EVIDENCE_MODEL_DIR", str(DATA_DIR / "models"))).resolve()
EVIDENCE_JUDGE = env_str("EVIDENCE_JUDGE", "local")
EVIDENCE_JEV_URL = env_str("EVIDENCE_JEV_URL", "")
EVIDENCE_JEV_KEY = env_str("EVIDENCE_JEV_KEY", "")
EVIDENCE_JEV_MODEL = env_str("EVIDENCE_JEV_MODEL", "jev-latest")
EVIDENCE_JUDGE_LLM_URL = env_str("EVIDENCE_JUDGE_LLM_URL", "")  # unset: OPENAI_BASE_URL
EVIDENCE_JUDGE_LLM_KEY = env_str("EVIDENCE_JUDGE_LLM_KEY", "")  # unset: OPENAI_API_KEY
EVIDENCE_JUDGE_LLM_MODEL = env_str("EVIDENCE_JUDGE_LLM_MODEL", "")  # unset: OPENAI_MODEL

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "evidence.logging.WorkerJsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if env_bool("EVIDENCE_LOG_JSON", True) else "plain",
        }
    },
    "root": {"handlers": ["console"], "level": env_str("EVIDENCE_LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
