# attention-talk: build a wheel, install it into a slim Python 3.12 image, run as a non-root user.
#   docker build -t attention-talk .
#   docker run --rm -p 8000:8000 attention-talk
# Settings come from ATTENTION_TALK_* environment variables (README, "Settings").

FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
COPY slides ./slides
COPY templates ./templates
COPY static ./static
RUN pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /wheels .

FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ATTENTION_TALK_PORT=8000 \
    ATTENTION_TALK_WORKERS=2
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --disable-pip-version-check /wheels/*.whl && rm -rf /wheels \
    && useradd --create-home --uid 10001 talk
USER talk
WORKDIR /home/talk
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('ATTENTION_TALK_PORT', '8000') + '/healthz', timeout=4)"]
STOPSIGNAL SIGTERM
CMD ["attention-talk", "serve", "--host", "0.0.0.0"]
