# Evidence desk app image: the same image runs the web server (default) and the Celery worker.
# Postgres (with pgvector) and Redis come from docker-compose.yml, so the bundled embedded services stay unused.
FROM python:3.12-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_DEBUG=false \
    EVIDENCE_HTTPS=true \
    EVIDENCE_DATA_DIR=/data

WORKDIR /app
RUN useradd --system --create-home --home-dir /home/app app && mkdir -p /data && chown app /data

COPY requirements.txt requirements-nodeps.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir --no-deps -r requirements-nodeps.txt

COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput -v 0

USER app
EXPOSE 8000
CMD ["python", "scripts/run.py", "web"]
