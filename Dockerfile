# Evidence desk app image: the same image runs the web server (default) and the Celery worker.
# Postgres (with pgvector) and Redis come from docker-compose.yml, so the bundled embedded services stay unused.
FROM python:3.12-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_DEBUG=false \
    EVIDENCE_HTTPS=true \
    EVIDENCE_DATA_DIR=/data \
    EVIDENCE_MODEL_DIR=/opt/reader/models

WORKDIR /app
RUN useradd --system --create-home --home-dir /home/app app && mkdir -p /data && chown app /data

COPY requirements.txt requirements-nodeps.txt ./
RUN pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir --no-deps -r requirements-nodeps.txt

COPY . .
RUN DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput -v 0

# The reader model (make reader): llama-cpp-python compiled for any x86-64 CPU with AVX2, and the weights assembled
# into the image with their SHA-256 checked (evidence/reader/files.py).
RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake \
 && EVIDENCE_READER_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BLAS=OFF -DLLAMA_CURL=OFF" \
    EVIDENCE_CACHE_DIR=/tmp/reader-cache python scripts/install_reader.py \
 && rm -rf /tmp/reader-cache /var/lib/apt/lists/* && apt-get purge -y build-essential cmake && apt-get autoremove -y

USER app
EXPOSE 8000
CMD ["python", "scripts/run.py", "web"]
